# CloudFormation custom resource that runs the database migrations on every deploy.
# The module imports only the standard library at load time, so even a broken layer still lets
# this function answer CloudFormation instead of leaving the stack waiting.
from rhumbline.deploy.migrations_resource import handler  # noqa: F401
