# Team administration (tokens, migrations), invoked with IAM only: no API route reaches it.
from rhumbline.admin.handler import handler  # noqa: F401
