"""Rhumbline: a code knowledge graph of your repositories, served over MCP.

This package is the content of the shared Lambda layer. Keep module-level imports light:
every Lambda cold start pays for them.
"""

__version__ = "0.1.0"
