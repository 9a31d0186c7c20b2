"""A database URL's own options are quoted as the URL writes them, never respelled as the command's flags:
`memory_limit=SIZE` is a DuckDB URL option, while `--memory-limit` is refused with --sql-url."""
import duckdb
import pytest


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "d.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create table t as select 0.25 as score, 1 as label union all select 0.75, 0")
    con.close()
    return path


def test_unknown_option_lists_the_urls_own_options(cli, refused, db):
    result = cli(["audit", "--sql-url", f"duckdb:///{db}?bogus=1", "--table", "t"])
    refused(result, r"takes no option 'bogus'")
    assert "memory_limit=SIZE" in result.err and "--memory-limit" not in result.err, result.err


def test_the_url_is_echoed_as_given(cli, refused, db):
    url = f"duckdb:///{db}?memory_limit=zz"
    result = cli(["audit", "--sql-url", url, "--table", "t"])
    refused(result)
    assert url in result.err and "--memory-limit" not in result.err, result.err


def test_the_library_message_is_unchanged(db):
    import veracity as vc

    with pytest.raises(vc.VeracityError, match=r"supported: .*memory_limit=SIZE") as info:
        vc.audit_sql(f"duckdb:///{db}?bogus=1", table="t", score="score", label="label")
    assert info.value.param == "url"
