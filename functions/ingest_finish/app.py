# The hosted ingest's finish step (statemachines/ingest.asl.yaml); its logic is in rhumbline/ingest/distributed/.
from rhumbline.ingest.distributed.finish import handler  # noqa: F401
