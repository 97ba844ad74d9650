# The hosted ingest's shard step (statemachines/ingest.asl.yaml); its logic is in rhumbline/ingest/distributed/.
from rhumbline.ingest.distributed.shard import handler  # noqa: F401
