# API Gateway Lambda REQUEST authorizer (bearer tokens). All code lives in the shared layer.
from rhumbline.authorizer.handler import handler  # noqa: F401
