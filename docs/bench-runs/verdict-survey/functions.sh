P=/tmp/judge-survey/projects
SEMVER=src/semver/version.py::Version.bump_major,src/semver/version.py::Version.bump_prerelease,src/semver/version.py::Version.compare,src/semver/version.py::Version.match,src/semver/version.py::Version.parse,src/semver/version.py::Version.next_version,src/semver/version.py::Version.is_compatible,src/semver/_deprecated.py::max_ver
CACHE=src/cachetools/keys.py::hashkey,src/cachetools/keys.py::methodkey,src/cachetools/keys.py::typedkey,src/cachetools/__init__.py::Cache.__setitem__,src/cachetools/__init__.py::LRUCache.popitem,src/cachetools/__init__.py::LFUCache.popitem,src/cachetools/__init__.py::RRCache.popitem,src/cachetools/func.py::lru_cache
SQL=sqlparse/__init__.py::format,sqlparse/__init__.py::split,sqlparse/utils.py::remove_quotes,sqlparse/utils.py::split_unquoted_newlines,sqlparse/utils.py::imt,sqlparse/formatter.py::validate_options,sqlparse/sql.py::Statement.get_type,sqlparse/sql.py::Token.match
ARGS="--project $P/semver --functions $SEMVER --project $P/cachetools --functions $CACHE --project $P/sqlparse --functions $SQL"
# after (issue 24's closing figures): two more projects, in the same folder, each with its .venv
# tinydb (GitHub msiemens/tinydb 2283a2b): pytest.ini addopts "--verbose --cov-append
#   --cov-report term --cov tinydb" (pytest-cov writes .coverage into the project); flat layout
# tomli (GitHub hukkin/tomli 920e20b): src/ layout, unittest.TestCase classes with subTest
TINYDB=tinydb/table.py::Table.insert,tinydb/table.py::Table.search,tinydb/table.py::Table.remove,tinydb/operations.py::add,tinydb/utils.py::freeze,tinydb/utils.py::LRUCache.get
TOMLI=src/tomli/_parser.py::loads,src/tomli/_parser.py::load,src/tomli/_parser.py::parse_basic_str_escape,src/tomli/_parser.py::parse_array,src/tomli/_parser.py::Flags.is_,src/tomli/_re.py::match_to_datetime
ARGS_NEW="--project $P/tinydb --functions $TINYDB --project $P/tomli --functions $TOMLI"
