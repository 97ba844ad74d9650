"""Code that runs during a deployment (CloudFormation custom resources), not while serving."""
