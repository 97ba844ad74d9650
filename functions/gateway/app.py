# The MCP gateway (Streamable HTTP behind API Gateway). All code lives in the shared layer.
from rhumbline.gateway.lambda_entry import handler  # noqa: F401
