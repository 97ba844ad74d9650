# The GitHub webhook receiver (POST /webhooks/github). All code lives in the shared layer.
from rhumbline.webhooks.handler import handler  # noqa: F401
