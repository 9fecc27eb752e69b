"""``python -m rtolab``: the ``rtolab`` command line."""

from rtolab.cli import command

command()
