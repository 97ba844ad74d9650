"""Write and exfiltration attempts `query` must refuse on both backends (test_query_readonly.py on
Neo4j, test_query_embedded.py on the embedded store). MARK and PROP are unique per run, so a trace
of an attack that got through is unmistakable."""

from __future__ import annotations

import uuid

MARK = f"Pwned{uuid.uuid4().hex[:8]}"
PROP = MARK.lower()

ATTACKS = [
    # writes
    f"CREATE (n:{MARK} {{id: 'x'}})",
    f"cReAtE (:{MARK})",
    f"MATCH (n:CodeNode {{project: $project}}) SET n.{PROP} = 1",
    f"MATCH (n:CodeNode {{project: $project}}) SET n:{MARK}",
    "MATCH (n:CodeNode {project: $project}) SET n += {name: 'x'}",
    f"MERGE (n:{MARK} {{id: 1}}) RETURN n",
    "MATCH (n:CodeNode {project: $project}) DELETE n",
    "MATCH (n:CodeNode {project: $project}) DETACH DELETE n",
    "MATCH (:CodeNode {project: $project})-[r]->() DELETE r",
    "MATCH (n:CodeNode {project: $project}) REMOVE n.name",
    "MATCH (n:CodeNode {project: $project}) REMOVE n:CodeNode",
    f"FOREACH (x IN [1, 2] | CREATE (:{MARK}))",
    f"INSERT (:{MARK})",
    # CALL subqueries that write
    f"MATCH (n:CodeNode {{project: $project}}) CALL (n) {{ SET n.{PROP} = 1 }} RETURN count(*)",
    f"CALL {{ CREATE (:{MARK}) }} RETURN 1",
    f"MATCH (n:CodeNode {{project: $project}}) CALL {{ WITH n MERGE (:{MARK}) }} RETURN 1",
    "MATCH (n:CodeNode {project: $project}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10 ROWS",
    f"CALL db.index.fulltext.queryNodes('code_node_search', 'checkout') YIELD node SET node.{PROP} = 1",
    # exfiltration and data loading
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "LOAD CSV WITH HEADERS FROM 'http://127.0.0.1:9/x.csv' AS row RETURN row",
    "lOaD/**/cSv FROM 'https://example.com/x.csv' AS l RETURN l",
    "CALL apoc.load.json('http://127.0.0.1:9/x.json') YIELD value RETURN value",
    "CALL `apoc.load.json`('file:///etc/passwd') YIELD value RETURN value",
    "CALL apoc.cypher.runWrite($q, {}) YIELD value RETURN value",
    "WITH 'CREATE (:X)' AS q CALL apoc.cypher.doIt(q, {}) YIELD value RETURN value",
    "RETURN apoc.util.md5(['x']) AS h",
    "RETURN `apoc`.`util`.`md5`(['x']) AS h",
    # server procedures
    "CALL dbms.listConfig() YIELD name, value RETURN name, value",
    "CALL dbms.components()",
    f"CALL dbms.security.createUser('{PROP}', 'secret-secret', false)",
    f"CALL db.createLabel('{MARK}')",
    f"CALL db.createProperty('{PROP}')",
    "CALL db.clearQueryCaches()",
    "CALL db.labels() YIELD label CALL dbms.killQueries(['x']) YIELD queryId RETURN 1",
    # schema and administration
    f"CREATE INDEX {PROP} FOR (n:CodeNode) ON (n.{PROP})",
    "DROP CONSTRAINT code_node_key",
    "DROP INDEX code_node_search",
    "USE system SHOW USERS",
    "SHOW USERS",
    "SHOW DATABASES",
    f"CREATE USER {PROP} SET PASSWORD 'secret-secret'",
    "ALTER USER neo4j SET PASSWORD 'changed-password'",
    "GRANT ROLE admin TO neo4j",
    # multi-statement, comment, prefix and string tricks
    f"MATCH (n) RETURN n; CREATE (m:{MARK})",
    f"MATCH (n) RETURN n LIMIT 1 // harmless\n; CREATE (:{MARK})",
    f"RETURN 1 /* ; */ ; CREATE (:{MARK})",
    f"MATCH (n:CodeNode {{project: $project}}) /* x */ SET /* y */ n.{PROP} = 1",
    f"MATCH (n) RETURN n // trailing comment\nCREATE (:{MARK})",
    f"RETURN 'a\\\\' CREATE (:{MARK}) //'",
    f"PROFILE CREATE (:{MARK})",
    f"EXPLAIN CREATE (:{MARK})",
    f"CYPHER runtime=slotted CREATE (:{MARK})",
    f"MATCH (n) RETURN n /* unterminated CREATE (:{MARK})",
]
