"""``python -m app.sandbox`` is ``stoker sandbox``."""
from app.sandbox.commands import sandbox

if __name__ == "__main__":
    sandbox(prog_name="python -m app.sandbox")
