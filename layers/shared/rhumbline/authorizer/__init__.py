"""The HTTP API Lambda REQUEST authorizer: bearer token -> caller identity."""
