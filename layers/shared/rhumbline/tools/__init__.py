"""One module per tool: its pydantic input/output models and its logic. See `registry`."""
