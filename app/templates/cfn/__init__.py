"""The CloudFormation template format (pure): see :mod:`.template`."""
