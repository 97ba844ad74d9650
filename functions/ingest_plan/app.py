# The hosted ingest's plan step (statemachines/ingest.asl.yaml); its logic is in rhumbline/ingest/distributed/.
from rhumbline.ingest.distributed.plan import handler  # noqa: F401
