# Every tool's function: it serves the tool its name ends with (<stack>-tool-<tool>, template.yaml).
from rhumbline.runtime.handler import tool_handler

handler = tool_handler()
