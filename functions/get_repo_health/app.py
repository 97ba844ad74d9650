from rhumbline.runtime.handler import tool_handler

handler = tool_handler("get_repo_health")
