"""The `query` tool's machinery: a read-only Cypher guard, a runner and value serialization."""
