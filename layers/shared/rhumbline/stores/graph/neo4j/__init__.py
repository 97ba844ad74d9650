"""The hosted graph backend: Neo4j 5 over Bolt with the official driver (`store.Neo4jGraphStore`)."""
