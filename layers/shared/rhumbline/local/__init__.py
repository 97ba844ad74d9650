"""A Docker-free stand-in for `sam local`: the real handlers from template.yaml behind a local endpoint."""
