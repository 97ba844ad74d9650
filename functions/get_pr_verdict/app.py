from rhumbline.runtime.handler import tool_handler

handler = tool_handler("get_pr_verdict")
