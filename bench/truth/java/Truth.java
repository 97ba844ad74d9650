// The call sites of a Java source tree as JavaParser's symbol solver resolves them: the truth the
// call-graph bench scores our Java resolver against (bench/harness/callgraph_truth.py).
//
// Usage: java -cp <the classpath of pom.xml> Truth.java DIR > truth.json, DIR being a source root
// (packages as directories, as in a -sources.jar). Types resolve against DIR and the JDK; calls
// into other libraries stay undecided.
//
// One record per call site: [file, line, name, where, target, dispatch, implementations], for
// `m(...)`, `x.m(...)`, `new C(...)` (name C), `super(...)` and `this(...)`. where is "in" (target
// is "file:line:name" of the method declared in DIR, or of the class for `new C`, `super(...)`
// and `this(...)`), "out" (a method outside DIR: the JDK) or "" (the solver could not say).
// dispatch is true when the method is abstract, declared in an interface or overridden in DIR:
// implementations then lists its overrides in DIR, which the bench accepts beside it.
import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.nodeTypes.NodeWithSimpleName;
import com.github.javaparser.ast.stmt.ExplicitConstructorInvocationStmt;
import com.github.javaparser.resolution.declarations.ResolvedMethodDeclaration;
import com.github.javaparser.resolution.declarations.ResolvedReferenceTypeDeclaration;
import com.github.javaparser.resolution.types.ResolvedReferenceType;
import com.github.javaparser.symbolsolver.JavaSymbolSolver;
import com.github.javaparser.symbolsolver.resolution.typesolvers.CombinedTypeSolver;
import com.github.javaparser.symbolsolver.resolution.typesolvers.JavaParserTypeSolver;
import com.github.javaparser.symbolsolver.resolution.typesolvers.ReflectionTypeSolver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

public class Truth {
    static Path root;
    static final Map<String, TreeSet<String>> overrides = new TreeMap<>(); // qualified signature → overrides

    public static void main(String[] args) throws Exception {
        root = Paths.get(args[0]).toAbsolutePath().normalize();
        CombinedTypeSolver solver = new CombinedTypeSolver(new ReflectionTypeSolver(), new JavaParserTypeSolver(root));
        ParserConfiguration config = new ParserConfiguration()
            .setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17)
            .setSymbolResolver(new JavaSymbolSolver(solver));
        JavaParser parser = new JavaParser(config);
        List<CompilationUnit> units = new ArrayList<>();
        int parseErrors = 0;
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path file : (Iterable<Path>) walk.filter(p -> p.toString().endsWith(".java")).sorted()::iterator) {
                ParseResult<CompilationUnit> parsed = parser.parse(file);
                if (parsed.getResult().isPresent()) units.add(parsed.getResult().get());
                if (!parsed.isSuccessful()) parseErrors++;
            }
        }
        for (CompilationUnit unit : units) {
            for (MethodDeclaration method : unit.findAll(MethodDeclaration.class)) recordOverrides(method);
        }
        StringBuilder out = new StringBuilder();
        int sites = 0;
        out.append("{\"records\": [");
        for (CompilationUnit unit : units) {
            String file = relative(unit.getStorage().get().getPath());
            for (Node node : unit.findAll(Node.class, n -> n instanceof MethodCallExpr
                    || n instanceof ObjectCreationExpr || n instanceof ExplicitConstructorInvocationStmt)) {
                String[] decided = decide(node);
                String name = node instanceof MethodCallExpr call ? call.getNameAsString()
                    : node instanceof ObjectCreationExpr created ? created.getType().getNameAsString()
                    : ((ExplicitConstructorInvocationStmt) node).isThis() ? "this" : "super";
                if (sites++ > 0) out.append(",");
                out.append("[").append(quote(file)).append(",").append(node.getBegin().get().line).append(",")
                    .append(quote(name)).append(",").append(quote(decided[0])).append(",").append(quote(decided[1]))
                    .append(",").append(decided.length > 2).append(",[");
                for (int i = 2; i < decided.length; i++) out.append(i > 2 ? "," : "").append(quote(decided[i]));
                out.append("]]\n");
            }
        }
        out.append("], \"sites\": ").append(sites).append(", \"type_errors\": ").append(parseErrors).append("}");
        System.out.println(out);
    }

    static String relative(Path path) {
        return root.relativize(path.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }

    static boolean inside(Path path) {
        return path.toAbsolutePath().normalize().startsWith(root);
    }

    static Optional<String> position(Node declaration) {
        Optional<CompilationUnit> unit = declaration.findCompilationUnit();
        if (unit.isEmpty() || unit.get().getStorage().isEmpty()) return Optional.empty();
        Path path = unit.get().getStorage().get().getPath();
        if (!inside(path) || !(declaration instanceof NodeWithSimpleName<?> named)) return Optional.empty();
        return Optional.of(relative(path) + ":" + named.getName().getBegin().get().line + ":" + named.getNameAsString());
    }

    static void recordOverrides(MethodDeclaration method) {
        if (method.isStatic() || method.isPrivate()) return;
        try {
            ResolvedMethodDeclaration resolved = method.resolve();
            Optional<String> where = position(method);
            if (where.isEmpty()) return;
            for (ResolvedReferenceType ancestor : resolved.declaringType().getAllAncestors()) {
                for (ResolvedMethodDeclaration candidate : ancestor.getTypeDeclaration().get().getDeclaredMethods()) {
                    if (candidate.getName().equals(resolved.getName())
                            && candidate.getNumberOfParams() == resolved.getNumberOfParams()
                            && candidate.getSignature().equals(resolved.getSignature())) {
                        overrides.computeIfAbsent(candidate.getQualifiedSignature(), k -> new TreeSet<>()).add(where.get());
                    }
                }
            }
        } catch (Throwable undecided) { // the solver gives up on some declarations: no overrides known
        }
    }

    /** {where, target, implementations...}; a dispatched call has at least three entries. */
    static String[] decide(Node node) {
        try {
            if (node instanceof MethodCallExpr call) {
                ResolvedMethodDeclaration method = call.resolve();
                Optional<Node> ast = method.toAst();
                Optional<String> where = ast.flatMap(Truth::position);
                if (where.isEmpty()) return new String[] {"out", method.getQualifiedSignature()};
                TreeSet<String> found = overrides.getOrDefault(method.getQualifiedSignature(), new TreeSet<>());
                boolean dispatch = method.isAbstract() || method.declaringType().isInterface() || !found.isEmpty();
                if (!dispatch) return new String[] {"in", where.get()};
                List<String> record = new ArrayList<>(List.of("in", where.get(), where.get()));
                record.addAll(found);
                return record.toArray(new String[0]);
            }
            ResolvedReferenceTypeDeclaration type;
            if (node instanceof ObjectCreationExpr created) {
                type = created.getType().resolve().asReferenceType().getTypeDeclaration().get();
            } else {
                type = ((ExplicitConstructorInvocationStmt) node).resolve().declaringType();
            }
            Optional<String> where = type.toAst().flatMap(Truth::position);
            return where.isPresent() ? new String[] {"in", where.get()} : new String[] {"out", type.getQualifiedName()};
        } catch (Throwable undecided) { // unsolved symbols (other libraries), solver limits: undecided
            return new String[] {"", ""};
        }
    }

    static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') quoted.append('\\').append(c);
            else if (c < 0x20) quoted.append(String.format("\\u%04x", (int) c));
            else quoted.append(c);
        }
        return quoted.append('"').toString();
    }
}
