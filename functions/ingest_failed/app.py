# The hosted ingest's failed step (statemachines/ingest.asl.yaml); its logic is in rhumbline/ingest/distributed/.
from rhumbline.ingest.distributed.failed import handler  # noqa: F401
