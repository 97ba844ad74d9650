package dev.rhumbline.neo4j;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Neo4j 5.26 Community as an embedded DBMS that serves Bolt, so tests and CI get a
 * real Neo4j without Docker or the neo4j.com tarball (only Maven Central is reachable).
 *
 * <p>Usage: {@code RhumblineNeo4j <dataDir> [host] [port]}; the password comes from
 * the NEO4J_PASSWORD environment variable (not argv, so it does not show up in ps).
 * Prints {@code NEO4J_READY bolt://host:port} once Bolt accepts authenticated clients.
 */
public final class RhumblineNeo4j {

    private RhumblineNeo4j() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: RhumblineNeo4j <dataDir> [host=127.0.0.1] [port=7687]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        String host = args.length > 1 ? args[1] : "127.0.0.1";
        int port = args.length > 2 ? Integer.parseInt(args[2]) : 7687;
        String password = System.getenv().getOrDefault("NEO4J_PASSWORD", "rhumbline-test");
        Files.createDirectories(home);

        // The hardening every Neo4j behind Rhumbline gets (infra/neo4j/hardening.conf).
        String hardening = System.getProperty("rhumbline.neo4j.conf", "");
        if (hardening.isEmpty() || !Files.isRegularFile(Path.of(hardening))) {
            System.err.println("NEO4J_FAILED -Drhumbline.neo4j.conf must name infra/neo4j/hardening.conf");
            System.exit(2);
        }
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .loadPropertiesFromFile(Path.of(hardening))
                .setConfig(Map.of(
                        // Auth on, so code paths that send credentials are really exercised.
                        GraphDatabaseSettings.auth_enabled, true,
                        // Loopback only: this is a test server with a well-known password.
                        BoltConnector.enabled, true,
                        BoltConnector.listen_address, new SocketAddress(host, port),
                        BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED,
                        // Advertise the same address so neo4j:// routing tables point back here.
                        GraphDatabaseSettings.default_advertised_address, new SocketAddress(host),
                        BoltConnector.advertised_address, new SocketAddress(host, port),
                        // Embedded mode does not run the web server, but say so explicitly.
                        HttpConnector.enabled, false,
                        HttpsConnector.enabled, false))
                .setConfig(Map.of(
                        // Predictable footprint on a 2-core / 24 GiB box, but room for one ingest of a
                        // Django-sized project (~20k nodes, ~40k edges ≈ 200 MiB) in a single
                        // atomic transaction, which is how a first ingest is written.
                        GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(512),
                        GraphDatabaseSettings.memory_transaction_global_max_size, ByteUnit.mebiBytes(1536),
                        GraphDatabaseSettings.memory_transaction_max_size, ByteUnit.mebiBytes(1024),
                        // A hung test must not hold locks forever; a large ingest needs more than 30 s.
                        GraphDatabaseSettings.transaction_timeout, Duration.ofSeconds(120),
                        GraphDatabaseSettings.lock_acquisition_timeout, Duration.ofSeconds(20),
                        // Tx logs are preallocated (256 MiB each) and kept 2 days by default:
                        // wasteful for throwaway test data.
                        GraphDatabaseSettings.preallocate_logical_logs, false,
                        GraphDatabaseSettings.keep_logical_logs, "1 files",
                        // CI has no internet; don't try to phone home.
                        GraphDatabaseSettings.udc_enabled, false,
                        // debug.log / security.log go to <dataDir>/logs for post-mortems.
                        GraphDatabaseSettings.logs_directory, home.resolve("logs")))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Clean shutdown checkpoints the store, so the next start skips recovery.
            dbms.shutdown();
            stopped.countDown();
        }, "rhumbline-neo4j-shutdown"));

        try {
            setPassword(dbms, password);
            awaitPort(host, port, Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            // Neo4j's non-daemon threads would keep a half-configured server alive;
            // exit so the start script fails fast instead of waiting for its timeout.
            e.printStackTrace();
            System.err.println("NEO4J_FAILED " + e.getMessage());
            System.exit(1);
        }

        System.out.println("NEO4J_READY bolt://" + host + ":" + port);
        System.out.flush();
        stopped.await();
    }

    /**
     * Community has no "initial password" config setting (neo4j-admin writes an auth.ini
     * file instead), so we set it through the system database: embedded transactions run
     * with full privileges. Done before READY so clients never see the default
     * neo4j/neo4j "credentials expired" state.
     */
    private static void setPassword(DatabaseManagementService dbms, String password) {
        try {
            dbms.database("system").executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
        } catch (RuntimeException e) {
            // On a restart the password is usually already set, and Neo4j refuses to
            // "change" a password to itself.
            String msg = String.valueOf(e.getMessage());
            if (!msg.contains("Old password and new password cannot be the same")) {
                throw e;
            }
        }
    }

    /** Bolt binds during build(), but we verify rather than assume before announcing READY. */
    private static void awaitPort(String host, int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 1000);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Bolt did not accept connections on " + host + ":" + port, e);
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", ie);
                }
            }
        }
    }
}
