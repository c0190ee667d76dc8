"""``stoker db upgrade`` on a SQLite file: what it reports is what it did; a revision that is not
at or after the database's (an older id, ``base``, a relative one going back, however Alembic
spells it) is refused with both revisions named, the schema left as it was; so is an empty
one, with words. A file that does not exist is created, and said so; in a directory that does not
exist (a mistyped path), other than the data directory, it is refused and nothing is made; so is
one under a regular file, which is said not to be a directory. A path that is a directory, and
an in-memory database (which keeps nothing once the command ends), are refused with words."""
from __future__ import annotations

import pytest
from alembic.script import ScriptDirectory
from click.testing import CliRunner

from app.cli.commands import cli
from app.models import migrate

_HEAD = ScriptDirectory.from_config(migrate.alembic_config("sqlite://")).get_revision("head")
HEAD, PREVIOUS = _HEAD.revision, _HEAD.down_revision


@pytest.fixture()
def env(settings, monkeypatch):
    monkeypatch.setenv("STOKER_DATA_DIR", settings.data_dir)
    monkeypatch.setenv("STOKER_DATABASE_URL", settings.database_url)
    return settings


def _upgrade(*args: str):
    return CliRunner().invoke(cli, ["db", "upgrade", *args])


def test_upgrade_reports_the_revisions_it_went_between(env):
    url = env.database_url
    first = _upgrade("--revision", PREVIOUS)
    assert (first.exit_code, first.output) == (
        0, f"database {url} created at revision {PREVIOUS}\n")
    second = _upgrade()
    assert (second.exit_code, second.output) == (
        0, f"database {url} upgraded from revision {PREVIOUS} to {HEAD}\n")
    again = _upgrade()
    assert (again.exit_code, again.output) == (
        0, f"database {url} is already at revision {HEAD}\n")


@pytest.mark.parametrize("target", [
    PREVIOUS, "base", f"{PREVIOUS}@base", "-1", "head-1", f"{HEAD}-2", "base+1",
    f"{HEAD}@{PREVIOUS}"])
def test_an_older_revision_than_the_database_is_refused(env, target):
    url = env.database_url
    assert _upgrade().exit_code == 0
    older = _upgrade("--revision", target)
    assert older.exit_code == 2
    assert older.output == (f"stoker: error: database {url} not upgraded: the database is at "
                            f"revision {HEAD}, newer than {target}; an upgrade never goes "
                            "back to an older revision\n")
    assert migrate.current(url) == HEAD


@pytest.mark.parametrize("target", ["head", "heads", HEAD, f"{PREVIOUS}+1", f"{HEAD}@head"])
def test_the_database_s_own_revision_is_where_it_already_is(env, target):
    url = env.database_url
    assert _upgrade().exit_code == 0
    again = _upgrade("--revision", target)
    assert (again.exit_code, again.output) == (
        0, f"database {url} is already at revision {HEAD}\n")


def test_a_relative_revision_goes_forward_from_the_database_s(env):
    url = env.database_url
    assert _upgrade("--revision", PREVIOUS).exit_code == 0
    up = _upgrade("--revision", "+1")
    assert (up.exit_code, up.output) == (
        0, f"database {url} upgraded from revision {PREVIOUS} to {HEAD}\n")


@pytest.mark.parametrize("target", ["", " "])
def test_an_empty_revision_is_refused_with_words(env, target):
    url = env.database_url
    assert _upgrade().exit_code == 0
    empty = _upgrade("--revision", target)
    assert (empty.exit_code, empty.output) == (
        2, f"stoker: error: database {url} not upgraded: no revision named to upgrade to "
           "(an id, head, or +N)\n")
    assert migrate.current(url) == HEAD


def test_a_mistyped_path_is_refused_and_nothing_is_made(env, tmp_path, monkeypatch):
    missing = tmp_path / "no-such-dir" / "stoker.db"
    url = f"sqlite:///{missing}"
    monkeypatch.setenv("STOKER_DATABASE_URL", url)
    refused = _upgrade()
    assert (refused.exit_code, refused.output) == (
        2, f"stoker: error: database {url} not created: the directory {missing.parent} does "
        "not exist\n")
    assert not missing.parent.exists()


def test_a_new_file_in_the_data_directory_is_created_and_said_so(settings, tmp_path,
                                                                   monkeypatch):
    data = tmp_path / "fresh"
    monkeypatch.setenv("STOKER_DATA_DIR", str(data))
    monkeypatch.delenv("STOKER_DATABASE_URL", raising=False)
    made = _upgrade()
    assert made.exit_code == 0, made.output
    assert made.output == f"database sqlite:///{data / 'stoker.db'} created at revision {HEAD}\n"
    assert migrate.current(f"sqlite:///{data / 'stoker.db'}") == HEAD


@pytest.mark.parametrize("under", ["stoker.db", "sub/stoker.db"])
def test_a_path_under_a_regular_file_is_refused_as_not_a_directory(env, tmp_path, monkeypatch,
                                                                   under):
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    url = f"sqlite:///{afile / under}"
    monkeypatch.setenv("STOKER_DATABASE_URL", url)
    refused = _upgrade()
    assert (refused.exit_code, refused.output) == (
        2, f"stoker: error: database {url} not created: {afile} is not a directory\n")
    assert afile.read_text() == "not a directory"


def test_a_data_directory_that_is_a_regular_file_is_refused_as_not_a_directory(
        settings, tmp_path, monkeypatch):
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    monkeypatch.setenv("STOKER_DATA_DIR", str(afile))
    monkeypatch.delenv("STOKER_DATABASE_URL", raising=False)
    refused = _upgrade()
    assert (refused.exit_code, refused.output) == (
        2, f"stoker: error: database sqlite:///{afile / 'stoker.db'} not created: {afile} is "
        "not a directory\n")


def test_a_path_that_is_a_directory_is_refused(env, tmp_path, monkeypatch):
    folder = tmp_path / "adir"
    folder.mkdir()
    url = f"sqlite:///{folder}"
    monkeypatch.setenv("STOKER_DATABASE_URL", url)
    refused = _upgrade()
    assert (refused.exit_code, refused.output) == (
        2, f"stoker: error: database {url} not upgraded: {folder} is a directory, not a "
        "database file\n")
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:",
                                 "sqlite:///file:mem?mode=memory&uri=true"])
def test_an_in_memory_database_is_refused(env, monkeypatch, url):
    monkeypatch.setenv("STOKER_DATABASE_URL", url)
    refused = _upgrade()
    assert (refused.exit_code, refused.output) == (
        2, f"stoker: error: database {url} not upgraded: an in-memory database keeps nothing "
        "once the command ends; name a file (sqlite:///PATH)\n")
