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
# survey2 (docs/bench-runs/verdict-survey/survey2.md): three more projects, PyPI sdists, each
# in $P2/<name> with its own .venv (python 3.11.7, pytest 9.2.0)
# voluptuous 0.16.0: --doctest-glob=*.md in addopts, python_files = tests.py, tests inside the package
# pathspec 1.1.1: unittest.TestCase classes with subTest, tests that make temporary trees
# pydash 8.1.0: src/ layout, conftest fixture (mock.patch), parametrize, --doctest-modules,
#   pytest-cov (--cov-fail-under=100, xml/html/junit reports under build/) in addopts
P2=/tmp/survey2/projects
VOLUPTUOUS=voluptuous/schema_builder.py::Schema.extend,voluptuous/schema_builder.py::Schema.infer,voluptuous/validators.py::Match.__call__,voluptuous/validators.py::Range.__call__,voluptuous/validators.py::Email,voluptuous/humanize.py::humanize_error,voluptuous/validators.py::Coerce.__call__,voluptuous/error.py::Invalid.__str__,voluptuous/schema_builder.py::Schema.__call__
PATHSPEC=pathspec/util.py::normalize_file,pathspec/util.py::iter_tree_entries,pathspec/util.py::check_match_file,pathspec/pathspec.py::PathSpec.match_file,pathspec/pathspec.py::PathSpec.from_lines,pathspec/gitignore.py::GitIgnoreSpec.from_lines,pathspec/pattern.py::RegexPattern.match_file,pathspec/patterns/gitignore/spec.py::GitIgnoreSpecPattern.pattern_to_regex,pathspec/pathspec.py::PathSpec.match_tree_files,pathspec/pathspec.py::PathSpec.__eq__
PYDASH=src/pydash/arrays.py::chunk,src/pydash/strings.py::camel_case,src/pydash/objects.py::get,src/pydash/objects.py::set_,src/pydash/collections.py::group_by,src/pydash/helpers.py::base_get,src/pydash/utilities.py::retry,src/pydash/functions.py::Curry.__call__,src/pydash/predicates.py::is_match
# survey3 (docs/bench-runs/verdict-survey/survey3.md): three more projects, each in $P3/<name>
# with its own .venv (python 3.11.7, pytest 9.2.0)
# humanize 4.17.0 (PyPI sdist): src/ layout, [tool.pytest] (pytest 9's native table) with
#   addopts --doctest-modules and filterwarnings=error, parametrize, freezegun, gettext i18n
# more-itertools 11.2.1 (PyPI sdist): unittest.TestCase classes, subTest (21,194 subtests)
# sortedcontainers (GitHub grantjenks/python-sortedcontainers 3ac3586, 2.4.0): src/ layout,
#   tox.ini [pytest] addopts --doctest-modules --doctest-glob "*.rst", testpaths docs src tests
P3=/tmp/survey3/projects
HUMANIZE=src/humanize/number.py::intcomma,src/humanize/number.py::ordinal,src/humanize/time.py::naturaldelta,src/humanize/time.py::precisedelta,src/humanize/filesize.py::naturalsize,src/humanize/lists.py::natural_list,src/humanize/i18n.py::activate,src/humanize/time.py::_now
M=more_itertools
MORE_ITERTOOLS=$M/more.py::chunked,$M/more.py::first,$M/more.py::spy,$M/more.py::peekable.peek,$M/more.py::split_at,$M/more.py::always_iterable,$M/more.py::seekable.seek,$M/recipes.py::take,$M/recipes.py::unique_everseen
S=src/sortedcontainers
SORTED=$S/sortedlist.py::SortedList.bisect_left,$S/sortedlist.py::SortedList.irange,$S/sortedlist.py::SortedList.count,$S/sortedlist.py::SortedKeyList.bisect_key_left,$S/sortedlist.py::SortedList.index,$S/sorteddict.py::SortedDict.popitem,$S/sortedset.py::SortedSet.intersection
# survey4 (docs/bench-runs/verdict-survey/survey4.md): three more projects, PyPI sdists, each
# in $P4/<name> with its own .venv (python 3.11.7, pytest 9.2.0)
# toolz 1.2.0: tests inside the package (toolz/tests, toolz/sandbox/tests), plain functions and
#   asserts, curry objects (__call__, __get__, pickling), the curried namespace (aliases),
#   test_curried_doctests (doctest run by a test), test-local classes
# marshmallow 4.4.0: src/ layout, conftest fixtures and schemas, parametrize (ids made from
#   datetime.now()), field classes' _serialize/_deserialize, validators' __call__
# arrow 1.4.0: tox.ini [pytest] addopts "-v --cov-branch --cov=arrow --cov-fail-under=99
#   --cov-report=term-missing --cov-report=xml --junitxml=junit.xml", conftest class fixtures
#   (request.cls), pytest-mock, dateparser, locale classes reached through a dict
P4=/tmp/survey4/projects
T=toolz
TOOLZ=$T/itertoolz.py::groupby,$T/itertoolz.py::partition_all,$T/itertoolz.py::frequencies,$T/dicttoolz.py::merge_with,$T/dicttoolz.py::get_in,$T/dicttoolz.py::assoc,$T/functoolz.py::pipe,$T/functoolz.py::memoize,$T/functoolz.py::curry.__call__,$T/functoolz.py::Compose.__call__,$T/recipes.py::countby
MM=src/marshmallow
MARSHMALLOW=$MM/fields.py::String._serialize,$MM/fields.py::Boolean._deserialize,$MM/fields.py::TimeDelta._deserialize,$MM/fields.py::Number._format_num,$MM/validate.py::Length.__call__,$MM/validate.py::OneOf.__call__,$MM/utils.py::from_timestamp,$MM/utils.py::get_value,$MM/error_store.py::merge_errors,$MM/class_registry.py::get_class
A=arrow
ARROW=$A/util.py::is_timestamp,$A/util.py::normalize_timestamp,$A/util.py::iso_to_gregorian,$A/arrow.py::Arrow.shift,$A/arrow.py::Arrow.range,$A/arrow.py::Arrow.span,$A/parser.py::DateTimeParser.parse_iso,$A/formatter.py::DateTimeFormatter._format_token,$A/locales.py::get_locale,$A/locales.py::Locale.ordinal_number
# survey5 (docs/bench-runs/verdict-survey/survey5.md): three more projects, PyPI sdists, each in
# $P5/<name> with its own .venv (python 3.11.7, pytest 9.2.0)
# parse 1.22.4: addopts --cov --cov-append --doctest-modules --doctest-glob=README.rst; sdist files owned by uid 501
# tabulate 0.10.0: plain test functions under test/, no pytest configuration; namedtuples, dataclasses, sqlite3 cursors, iterators as input
# python-dateutil 4.0.0: src/ layout, filterwarnings=error, xfail_strict, conftest fixtures parametrized over tz sources, freezegun, hypothesis, 5,344 tests
P5=/tmp/survey5/projects
PARSE=parse/__init__.py::Parser.parse,parse/__init__.py::Parser.evaluate_result,parse/__init__.py::Parser._handle_field,parse/__init__.py::extract_format,parse/__init__.py::date_convert,parse/__init__.py::int_convert.__call__,parse/__init__.py::findall,parse/__init__.py::Result.__getitem__
TABULATE=tabulate/__init__.py::tabulate,tabulate/__init__.py::_type,tabulate/__init__.py::_isnumber,tabulate/__init__.py::_format,tabulate/__init__.py::_align_column,tabulate/__init__.py::_normalize_tabular_data,tabulate/__init__.py::_wrap_text_to_colwidths,tabulate/__init__.py::simple_separated_format
DATEUTIL=src/dateutil/easter.py::easter,src/dateutil/relativedelta.py::relativedelta.__add__,src/dateutil/relativedelta.py::relativedelta.normalized,src/dateutil/utils.py::within_delta,src/dateutil/parser/_parser.py::parser._parse,src/dateutil/parser/_parser.py::_ymd.resolve_ymd,src/dateutil/parser/_parser.py::parserinfo.convertyear,src/dateutil/parser/isoparser.py::isoparser._parse_isotime
# survey6 (docs/bench-runs/verdict-survey/survey6.md): three more projects, PyPI sdists, each in
# $P6/<name> with its own .venv (python 3.11.7, pytest 9.2.0)
# inflect 7.6.0: jaraco skeleton: pytest.ini addopts "--doctest-modules --import-mode importlib",
#   pytest-enabler (adds --cov through pytest-cov: .coverage written into the project),
#   typeguard's @typechecked on the engine's methods, tests that loop over inflections.txt
# markdown 3.11.3 (Python-Markdown): unittest.TestCase classes (markdown.test_tools.TestCase,
#   LegacyTestCase), subTest, no pytest configuration (a conftest.py added: see survey6.md)
# glom 25.12.0: tests inside the package (glom/test), conftest, classes made inside tests and
#   registered as target types, the CLI run as a subprocess (the venv's bin on PATH)
P6=/tmp/survey6/projects
I=inflect/__init__.py
INFLECT=$I::joinstem,$I::_group_thousands,$I::engine.compare,$I::engine.singular_noun,$I::engine._handle_prepositional_phrase,$I::engine.ordinal,$I::engine.a,$I::engine.number_to_currency,$I::engine.group1sub,$I::engine.present_participle
MD=markdown
MARKDOWN=$MD/util.py::parseBoolValue,$MD/inlinepatterns.py::dequote,$MD/extensions/toc.py::slugify,$MD/extensions/toc.py::unique,$MD/extensions/toc.py::strip_tags,$MD/extensions/attr_list.py::get_attrs_and_remainder,$MD/extensions/attr_list.py::isheader,$MD/extensions/abbr.py::AbbrExtension.load_glossary,$MD/extensions/smarty.py::SubstituteTextPattern.handleMatch,$MD/extensions/fenced_code.py::FencedBlockPreprocessor.handle_attrs
G=glom
GLOM=$G/core.py::format_invocation,$G/core.py::_format_slice,$G/core.py::_get_sequence_item,$G/core.py::TargetRegistry._get_closest_type,$G/core.py::_format_t,$G/core.py::Coalesce.glomit,$G/core.py::_handle_dict,$G/reduction.py::Flatten._fold,$G/matching.py::Regex.glomit,$G/grouping.py::Avg.agg
# survey7 (docs/bench-runs/verdict-survey/survey7.md): three more projects, PyPI sdists, each in
# $P7/<name> with its own .venv (python 3.11.7)
# itsdangerous 2.2.0: src/ layout, pytest 9.2.0, class-based tests with fixtures and parametrize
#   inherited across test classes, freezegun (freeze_time in an autouse fixture), filterwarnings=error
# python-slugify 9.2.0: unittest.TestCase classes with subTest, pytest 9.2.0, filterwarnings=error,
#   addopts --color=yes, mock.patch, a test running `python -m slugify` in a subprocess
# docopt-ng 0.9.0: pytest 8.4.2 (its conftest's pytest_collect_file(path) hook needs pytest < 9), a
#   conftest plugin collecting testcases.docopt into custom pytest.Items, an autouse mock.patch of sys.argv
P7=/tmp/survey7/projects
ID=src/itsdangerous
ITSDANGEROUS=$ID/encoding.py::base64_decode,$ID/encoding.py::int_to_bytes,$ID/signer.py::Signer.derive_key,$ID/signer.py::Signer.unsign,$ID/signer.py::HMACAlgorithm.get_signature,$ID/timed.py::TimestampSigner.timestamp_to_datetime,$ID/timed.py::TimestampSigner.unsign,$ID/serializer.py::Serializer.loads,$ID/serializer.py::Serializer.iter_unsigners,$ID/url_safe.py::URLSafeSerializerMixin.load_payload
SL=slugify
SLUGIFY=$SL/slugify.py::slugify,$SL/slugify.py::_numeric_reference,$SL/slugify.py::_transliterate,$SL/slugify.py::_is_combining_mark,$SL/slugify.py::_modern_truncate,$SL/_legacy.py::smart_truncate,$SL/_legacy.py::slugify,$SL/special.py::add_uppercase_char,$SL/__main__.py::parse_args,$SL/__main__.py::slugify_params
D=docopt/__init__.py
DOCOPT=$D::levenshtein,$D::transform,$D::Option.parse,$D::Tokens.from_pattern,$D::parse_pattern,$D::parse_argv,$D::parse_docstring_sections,$D::formal_usage,$D::BranchPattern.fix_repeating_arguments,$D::docopt
# survey8 (isodate 0.7.2, jmespath.py 2ad18b0, natsort 8.4.0)
IS=src/isodate
ISODATE=$IS/isodates.py::parse_date,$IS/isodates.py::date_isoformat,$IS/isoduration.py::parse_duration,$IS/isoduration.py::duration_isoformat,$IS/duration.py::Duration.__add__,$IS/duration.py::Duration.totimedelta,$IS/duration.py::fquotmod,$IS/isotime.py::parse_time,$IS/isotzinfo.py::build_tzinfo,$IS/isostrf.py::strftime
JP=jmespath
JMESPATH=$JP/lexer.py::Lexer.tokenize,$JP/lexer.py::Lexer._consume_literal,$JP/parser.py::Parser.parse,$JP/parser.py::Parser._parse_slice_expression,$JP/parser.py::ParsedResult.search,$JP/visitor.py::TreeInterpreter.visit_filter_projection,$JP/visitor.py::_equals,$JP/functions.py::Functions.call_function,$JP/functions.py::Functions._func_sort_by,$JP/__init__.py::search
NS=natsort
NATSORT=$NS/natsort.py::natsort_keygen,$NS/natsort.py::natsorted,$NS/natsort.py::index_natsorted,$NS/natsort.py::order_by_index,$NS/utils.py::parse_string_factory,$NS/utils.py::sep_inserter,$NS/utils.py::groupletters,$NS/utils.py::input_string_transform_factory,$NS/compat/fake_fastnumbers.py::fast_float,$NS/__main__.py::keep_entry_range
# survey9 (docs/bench-runs/verdict-survey/survey9.md): click 8.5.1 (with pytest-randomly),
# boltons 26.2.0 (--doctest-modules), backoff 2.2.1 (pytest-asyncio), each in $P9/<name>
P9=/tmp/survey9/projects
C=src/click
CLICK=$C/utils.py::make_str,$C/utils.py::_make_default_short_help,$C/formatting.py::wrap_text,$C/formatting.py::iter_rows,$C/formatting.py::join_options,$C/parser.py::_OptionParser._match_short_opt,$C/termui.py::_build_prompt,$C/shell_completion.py::split_arg_string,$C/utils.py::format_filename,$C/types.py::_NumberRangeBase.convert
B=boltons
BOLTONS=$B/strutils.py::camel2under,$B/strutils.py::bytes2human,$B/strutils.py::strip_ansi,$B/iterutils.py::windowed_iter,$B/iterutils.py::remap,$B/iterutils.py::first,$B/dictutils.py::OrderedMultiDict.add,$B/cacheutils.py::LRI.__getitem__,$B/funcutils.py::wraps,$B/setutils.py::IndexedSet.add
BO=backoff
BACKOFF=$BO/_wait_gen.py::expo,$BO/_wait_gen.py::fibo,$BO/_wait_gen.py::decay,$BO/_jitter.py::full_jitter,$BO/_jitter.py::random_jitter,$BO/_common.py::_next_wait,$BO/_common.py::_log_backoff,$BO/_decorator.py::on_exception,$BO/_async.py::retry_exception,$BO/_async.py::_call_handlers
# survey10 (docs/bench-runs/verdict-survey/survey10.md): mistune 3.4.0 (src/ layout, unittest
# classes whose test methods are made from fixture files at import, subTest), tomlkit 0.15.3
# (toml-test data files parametrized, addopts "--cov=tomlkit --cov-report=" added), ordered-set
# 4.1.0 (addopts --doctest-modules --doctest-glob=README.md), each in $P10/<name>
P10=/tmp/survey10/projects
MI=src/mistune
MISTUNE=$MI/util.py::escape_url,$MI/util.py::striptags,$MI/util.py::unikey,$MI/helpers.py::parse_link_title,$MI/plugins/table.py::_process_thead,$MI/plugins/table.py::render_table_cell,$MI/renderers/html.py::HTMLRenderer.heading,$MI/renderers/html.py::HTMLRenderer.block_code,$MI/toc.py::normalize_toc_item,$MI/core.py::BlockState.depth
TK=tomlkit
TOMLKIT=$TK/_utils.py::parse_rfc3339,$TK/_utils.py::escape_string,$TK/_utils.py::merge_dicts,$TK/api.py::array,$TK/api.py::key,$TK/items.py::StringType.select,$TK/items.py::StringType.unit,$TK/items.py::_format_datetime,$TK/parser.py::Parser._parse_bool,$TK/parser.py::Parser._parse_escaped_char
OS=ordered_set/__init__.py
ORDEREDSET=$OS::_is_atomic,$OS::OrderedSet.add,$OS::OrderedSet.__getitem__,$OS::OrderedSet.index,$OS::OrderedSet.union,$OS::OrderedSet.difference,$OS::OrderedSet.__eq__,$OS::OrderedSet.pop,$OS::OrderedSet.symmetric_difference,$OS::OrderedSet.copy
# survey11 (docs/bench-runs/verdict-survey/survey11.md): structlog 26.1.0 (pytest-asyncio
# asyncio_mode=auto, pytest-randomly, --import-mode=importlib, autouse conftest fixtures, many
# small modules), tenacity 9.2.1 (unittest.TestCase with setUp, mock.patch.object of the package,
# many small modules), schedule 1.2.2 (TestCase with setUp, datetime.datetime replaced by the
# tests; addopts "--timeout=60" (pytest-timeout) added), each in $P11/<name>
P11=/tmp/survey11/projects
STL=src/structlog
STRUCTLOG=$STL/_log_levels.py::add_log_level,$STL/_log_levels.py::map_method_name,$STL/processors.py::KeyValueRenderer.__call__,$STL/processors.py::_items_sorter,$STL/processors.py::_make_stamper,$STL/processors.py::_figure_out_exc_info,$STL/contextvars.py::merge_contextvars,$STL/_frames.py::_find_first_app_frame_and_name,$STL/_base.py::BoundLoggerBase._process_event,$STL/stdlib.py::BoundLogger._dispatch_to_sync
TN=tenacity
TENACITY=$TN/_utils.py::find_ordinal,$TN/_utils.py::get_callback_name,$TN/wait.py::wait_exponential.__call__,$TN/wait.py::wait_base.__radd__,$TN/__init__.py::RetryCallState.prepare_for_next_attempt,$TN/__init__.py::Future.construct,$TN/__init__.py::RetryCallState.seconds_since_start,$TN/__init__.py::BaseRetrying.wraps,$TN/asyncio/__init__.py::AsyncRetrying.__call__,$TN/before_sleep.py::before_sleep_log
SC=schedule/__init__.py
SCHEDULE=$SC::every,$SC::Job.at,$SC::Job._schedule_next_run,$SC::Job.seconds,$SC::Scheduler.idle_seconds,$SC::Job.until,$SC::Job.__repr__,$SC::_move_to_next_weekday,$SC::Scheduler.run_pending,$SC::Job._correct_utc_offset
# survey12 (docs/bench-runs/verdict-survey/survey12.md): boolean.py 5.0 (addopts --doctest-modules,
# tests inside the package, unittest classes, a class-based API with __eq__/__hash__/__str__),
# python-dotenv 1.2.4 (parametrize, tmp_path/monkeypatch/capsys, click's CliRunner; addopts
# "--cov=dotenv --cov-report=" of pytest-cov added, as its tox.ini runs it), munch 4.0.0 (a dict
# subclass with __getattr__/__setattr__/__repr__, classmethods, doctests in the methods'
# docstrings, functions assigned as methods), each in $P12/<name>
P12=/tmp/survey12/projects
BO12=boolean/boolean.py
BOOLEANPY=$BO12::BooleanAlgebra.parse,$BO12::BooleanAlgebra.tokenize,$BO12::Expression.subs,$BO12::Expression.literals,$BO12::Symbol.__eq__,$BO12::Symbol.__hash__,$BO12::Function.__str__,$BO12::Function.pretty,$BO12::DualBase.absorb,$BO12::NOT.demorgan
DE=src/dotenv
DOTENV=$DE/main.py::set_key,$DE/main.py::unset_key,$DE/main.py::rewrite,$DE/main.py::find_dotenv,$DE/main.py::dotenv_values,$DE/main.py::DotEnv.set_as_environment_variables,$DE/parser.py::parse_stream,$DE/parser.py::decode_escapes,$DE/variables.py::Variable.resolve,$DE/cli.py::list_values
MU=munch/__init__.py
MUNCH=$MU::Munch.__getattr__,$MU::Munch.__setattr__,$MU::Munch.toDict,$MU::Munch.__repr__,$MU::Munch.fromDict,$MU::DefaultMunch.__getattr__,$MU::DefaultFactoryMunch.__missing__,$MU::munchify,$MU::unmunchify,$MU::toYAML
# survey13 (docs/bench-runs/verdict-survey/survey13.md): hpack 4.2.0 (src/ layout, hypothesis's
# plugin and @given tests, conftest fixtures, HeaderTuple(tuple) objects and custom exceptions),
# python-multipart 0.0.34 (unittest.TestCase classes with setUp and assertRaises contexts,
# exceptions with an `offset` attribute, IntEnum states, callbacks; addopts "--timeout=60"
# (pytest-timeout) added, pytest-codspeed's benchmark marker), environs 15.2.0 (src/ layout,
# yield fixtures with monkeypatch, marshmallow fields, EnvValidationError.error_messages, a
# @contextmanager method), each in $P13/<name>
P13=/tmp/survey13/projects
HP=src/hpack
HPACK=$HP/hpack.py::encode_integer,$HP/hpack.py::decode_integer,$HP/hpack.py::_dict_to_iterable,$HP/hpack.py::Encoder.encode,$HP/hpack.py::Encoder.add,$HP/hpack.py::Decoder.decode,$HP/huffman.py::HuffmanEncoder.encode,$HP/huffman_table.py::decode_huffman,$HP/table.py::HeaderTable.get_by_index,$HP/table.py::HeaderTable.search
MP=python_multipart
MULTIPART=$MP/multipart.py::parse_options_header,$MP/multipart.py::Field.from_value,$MP/multipart.py::Field.__eq__,$MP/multipart.py::File.flush_to_disk,$MP/multipart.py::BaseParser.set_callback,$MP/multipart.py::QuerystringParser._internal_write,$MP/multipart.py::OctetStreamParser.write,$MP/decoders.py::Base64Decoder.write,$MP/decoders.py::QuotedPrintableDecoder.write,$MP/multipart.py::create_form_parser
EN=src/environs
ENVIRONS=$EN/__init__.py::_preprocess_list,$EN/__init__.py::_preprocess_dict,$EN/__init__.py::_dj_db_url_parser,$EN/__init__.py::Env.read_env,$EN/__init__.py::Env.prefixed,$EN/__init__.py::Env.seal,$EN/__init__.py::Env.dump,$EN/__init__.py::Env._expand_vars,$EN/__init__.py::FileAwareEnv._get_value,$EN/fields.py::TimeDelta._deserialize
