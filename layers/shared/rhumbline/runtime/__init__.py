"""What runs inside a tool function: the per-call context and the Lambda handler factory."""
