# Every tool's function: RHUMBLINE_TOOL (set per function in template.yaml) names the tool it serves.
from rhumbline.runtime.handler import tool_handler

handler = tool_handler()
