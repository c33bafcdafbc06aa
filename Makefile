# drillspark — every target does its own set-up: a fresh clone needs only Python >= 3.11 and git.
# Java 17 is installed with apt-get when missing.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
JAR_SOURCES := $(shell find jvm/src/main -type f 2>/dev/null) jvm/scalac.options jvm/scalac-warnings-allowed.txt \
               python/drillspark/_version.py tools/build_jar.py $(wildcard python/drillspark/rules/*.tsv)
VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"/\1/p' python/drillspark/_version.py)
JAR    := python/drillspark/jars/drillspark-extension_2.13-$(VERSION).jar
# Drill's sample data for `cp` (FoodMart JSON from Maven Central; tools/fetch_cp_data.py)
CP_DATA := python/drillspark/cp/.fetched
# Drill's JDBC driver and sqlline for tests/native/ (tools/fetch_drill_clients.py)
DRILL_CLIENTS := tests/native/jars/.fetched
# the Arrow Flight SQL JDBC driver for tests/flight/ (tools/fetch_flight_clients.py)
FLIGHT_CLIENTS := tests/flight/jars/.fetched
# The `jdbc` plugin's JDBC drivers (PostgreSQL's, MariaDB Connector/J from Maven Central; tools/fetch_jdbc_drivers.py)
DRIVERS := python/drillspark/jars/drivers/.fetched
# the format readers' Java libraries (Apache POI, excel-streaming-reader, Yauaa; tools/fetch_format_jars.py)
FORMAT_JARS := python/drillspark/jars/formats/.fetched
HADOOP_JARS := python/drillspark/jars/hadoop/.fetched
# Hadoop's MiniDFSCluster for the hdfs:// tests (tools/fetch_hdfs_test_jars.py)
HDFS_TEST_JARS := tests/storage/jars/hdfs/.fetched
# a Kafka 4.4.0 broker (KRaft) for the kafka plugin's tests (tools/fetch_kafka_test_jars.py)
KAFKA_TEST_JARS := tests/storage/jars/kafka/.fetched
# The record plugins' clients (#32: the MongoDB Java driver; tools/fetch_client_jars.py)
CLIENT_JARS := python/drillspark/jars/clients/.fetched
# FerretDB (a MongoDB wire-protocol server over SQLite) for the `mongo` plugin's tests, built with go
FERRETDB := build/ferretdb/ferretdb
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
PYTEST_ARGS ?= --durations=40

.PHONY: all setup java browser databases jar demo test test-long unit conformance bench lint clean

all: setup

# --- set-up -------------------------------------------------------------------------------
java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "make: java not found; installing openjdk-17-jdk-headless with apt-get"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless) \
	  || { echo "make: drillspark needs Java 17. Install it: apt-get install -y openjdk-17-jdk-headless"; exit 1; }; }

# The server's console tests drive a real headless browser: Debian's chromium + chromedriver.
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || { \
	  echo "make: installing chromium and chromium-driver with apt-get (the console tests)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) \
	  || { echo "make: the console tests need chromium and chromium-driver (apt-get install -y chromium chromium-driver)"; exit 1; }; }

# The jdbc plugin's tests run real PostgreSQL and MariaDB servers from Debian's packages
# (tests/storage/conftest.py starts its own on free loopback ports, in temporary folders: the
# packages' own services are not used).
databases:
	@{ ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; } \
	  && { [ -x /usr/sbin/mariadbd ] || command -v mariadbd >/dev/null 2>&1; } && command -v mariadb-install-db >/dev/null 2>&1 || { \
	  echo "make: installing postgresql and mariadb-server with apt-get (the jdbc plugin's tests)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql mariadb-server) \
	  || { echo "make: the jdbc plugin's tests need PostgreSQL and MariaDB (apt-get install -y postgresql mariadb-server)"; exit 1; }; }

$(VENV)/.deps: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "make: drillspark needs Python >= 3.11 (found %s)" % sys.version.split()[0])'
	@echo "make: creating the virtualenv $(VENV)"
	$(PYTHON) -m venv $(VENV)
	@echo "make: upgrading pip, setuptools and wheel in $(VENV)"
	$(PIP) install -q --upgrade pip setuptools wheel
	@echo "make: installing pyspark 4.3 (a download of about 450 MB: minutes on a slow line) ..."
	$(PIP) install --progress-bar on "pyspark==4.3.*"
	touch $@

$(JAR): $(VENV)/.deps $(JAR_SOURCES) | java
	@echo "make: compiling the Scala extension (2-3 minutes) ..."
	$(PY) tools/build_jar.py

jar: $(VENV)/.deps java
	@echo "make: building the Scala extension jar (2-3 minutes when the sources changed) ..."
	$(PY) tools/build_jar.py

# Drill's sample data served by `cp` (cp.`employee.json`, ...): the FoodMart JSON files of
# net.hydromatic:foodmart-data-json:0.4, the artifact Drill 1.22 ships, fetched from Maven Central
# (or ~/.m2) and checked against its SHA-1; standard-library Python, so it needs no venv.
$(CP_DATA): tools/fetch_cp_data.py tools/pinned_jars.py
	@echo "make: fetching Drill's sample data for cp (foodmart-data-json 0.4, 18 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_cp_data.py

# The JDBC drivers the `jdbc` storage plugin ships: org.postgresql:postgresql and
# org.mariadb.jdbc:mariadb-java-client from Maven Central (or ~/.m2), checked against their SHA-1s,
# into python/drillspark/jars/drivers/ (the wheel carries them; session() puts them on spark.jars).
$(DRIVERS): tools/fetch_jdbc_drivers.py tools/pinned_jars.py
	@echo "make: fetching the JDBC drivers (PostgreSQL 42.7.14, MariaDB Connector/J 3.5.11: 2 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_jdbc_drivers.py

# The format readers' Java libraries (Apache POI 5.4.1 and excel-streaming-reader 5.1.0 for `excel`,
# the versions Drill 1.22's plugin runs) from Maven Central (or ~/.m2), checked against their SHA-1s,
# into python/drillspark/jars/formats/ (the extension compiles against them; session() puts them
# on spark.jars; tools/build_jar.py fetches them too when they are missing).
$(FORMAT_JARS): tools/fetch_format_jars.py tools/pinned_jars.py
	@echo "make: fetching the format readers' libraries (Apache POI 5.4.1, excel-streaming-reader 5.1.0, Yauaa 7.19.2: 16 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_format_jars.py

# Hadoop's S3A file system for `file` plugins on s3a:// (hadoop-aws 3.5.0, pyspark's Hadoop, and
# the AWS SDK v2 modules it uses, not the SDK's 600 MB bundle) from Maven Central (or ~/.m2),
# checked against their SHA-1s, into python/drillspark/jars/hadoop/ (session() puts them on spark.jars).
$(HADOOP_JARS): tools/fetch_hadoop_jars.py tools/pinned_jars.py
	@echo "make: fetching hadoop-aws 3.5.0 and the AWS SDK parts it needs (12 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_hadoop_jars.py

# The `mongo` plugin's client: org.mongodb:mongodb-driver-sync, mongodb-driver-core and bson 5.14.0
# from Maven Central (or ~/.m2), checked against their SHA-1s, into python/drillspark/jars/clients/
# (session() puts them on spark.jars; the extension calls the driver by reflection).
$(CLIENT_JARS): tools/fetch_client_jars.py tools/pinned_jars.py
	@echo "make: fetching the MongoDB Java driver 5.14.0 (3 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_client_jars.py

# FerretDB 1.24.2 from the Go module proxy, built once into build/ferretdb/ (git-ignored; a few
# minutes the first time): the real MongoDB-protocol server the `mongo` plugin's tests start.
# Built from the module's source: FerretDB refuses to start without build/version/version.txt,
# which its own build generates and `go install` leaves out.
$(FERRETDB):
	@echo "make: building FerretDB 1.24.2 with go (the mongo plugin's test server; minutes, once) ..."
	rm -rf build/ferretdb/src && mkdir -p build/ferretdb
	cp -r "$$(GOTOOLCHAIN=local GOFLAGS=-mod=mod $(GO) mod download -json github.com/FerretDB/FerretDB@v1.24.2 | sed -n 's/.*"Dir": "\(.*\)",/\1/p')" build/ferretdb/src
	chmod -R u+w build/ferretdb/src
	echo v1.24.2 > build/ferretdb/src/build/version/version.txt
	cd build/ferretdb/src && GOTOOLCHAIN=local GOFLAGS=-mod=mod $(GO) build -o ../ferretdb ./cmd/ferretdb

# Hadoop 3.5.0's MiniDFSCluster (hadoop-hdfs and hadoop-common with their test jars, and what they
# need: 130 jars) from Maven Central (or ~/.m2), SHA-1 checked, into tests/storage/jars/hdfs/, for the
# hdfs:// file plugin tests of the long tier (tests/storage/test_hdfs_sql.py).
$(HDFS_TEST_JARS): tools/fetch_hdfs_test_jars.py tools/pinned_jars.py
	@echo "make: fetching Hadoop's MiniDFSCluster for the hdfs:// tests (73 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_hdfs_test_jars.py

# Apache Kafka 4.4.0's broker (kafka_2.13 and what it needs at run time: 44 jars) from Maven Central
# (or ~/.m2), SHA-1 checked, into tests/storage/jars/kafka/, for the kafka plugin's tests of the
# long tier (tests/storage/kafka_server.py starts it in KRaft mode).
$(KAFKA_TEST_JARS): tools/fetch_kafka_test_jars.py tools/pinned_jars.py
	@echo "make: fetching a Kafka broker for the kafka plugin's tests (43 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_kafka_test_jars.py

# Drill's own clients, for the native protocol's tests (tests/native/): the JDBC driver
# org.apache.drill.exec:drill-jdbc-all:1.22.0 and sqlline 1.12.0 with its jline jars, from Maven
# Central (or ~/.m2), checked against their SHA-1s, into tests/native/jars/ (git-ignored).
$(DRILL_CLIENTS): tools/fetch_drill_clients.py tools/pinned_jars.py
	@echo "make: fetching Drill's JDBC driver and sqlline for the native protocol's tests (55 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_drill_clients.py

# The Arrow Flight SQL JDBC driver (org.apache.arrow:flight-sql-jdbc-driver:18.3.0), for the Flight
# SQL tests (tests/flight/), from Maven Central (or ~/.m2), SHA-1 checked, into tests/flight/jars/.
$(FLIGHT_CLIENTS): tools/fetch_flight_clients.py tools/pinned_jars.py
	@echo "make: fetching the Flight SQL JDBC driver for the Flight SQL tests (45 MB from Maven Central) ..."
	$(PYTHON) tools/fetch_flight_clients.py

# The package itself, editable, with the dev tools; the jar is built and the sample data fetched
# first (setup.py reuses both).
$(VENV)/.installed: $(VENV)/.deps $(JAR) pyproject.toml setup.py | $(CP_DATA) $(DRIVERS) $(FORMAT_JARS) $(HADOOP_JARS)
	@echo "make: installing drillspark (editable) and its dependencies and dev tools (pyarrow, pandas, sqlglot, pytest, ruff, mypy, ...) ..."
	$(PIP) install --progress-bar on --no-build-isolation -e ".[dev]"
	@# pydrill's wheel installs its own top-level `tests` package, which would hide ours
	rm -rf $(VENV)/lib/python*/site-packages/tests
	touch $@

setup: $(VENV)/.installed $(CP_DATA) $(DRIVERS) $(FORMAT_JARS) $(HADOOP_JARS) $(HDFS_TEST_JARS) $(KAFKA_TEST_JARS) $(CLIENT_JARS) $(FERRETDB) $(DRILL_CLIENTS) $(FLIGHT_CLIENTS)
	@# the package's bytecode, compiled ahead (only what changed): a Python that may not write it
	@# (PYTHONDONTWRITEBYTECODE, read-only folders) would compile every module at every start
	@# (0.3-0.4 s of a fresh process's first statement; docs/performance.md)
	@$(PY) -m compileall -q python/drillspark

# --- the two commands ---------------------------------------------------------------------
demo: setup
	$(PY) examples/demo.py

# The fast tier first, so a broken rule fails in minutes, then the tests that start Spark: two
# runs, each test once (CI runs no separate `make unit`).
test: setup browser databases
	$(PY) -m pytest --unit $(PYTEST_ARGS)
	$(PY) -m pytest --no-unit $(PYTEST_ARGS)

# The long tier, which `make test` leaves out (tests/conftest.py): the separate deployments
# (local-cluster, Spark Connect, pyspark shells, spark-submit, a wheel installed elsewhere),
# the long fuzzing pass and the load tests. CI runs it after `make test`. Two workers: its tests
# mostly wait on processes they start (17.5 -> 11.2 min on 2 cores; docs/architecture.md).
test-long: setup browser databases
	$(PY) -m pytest -m "deploy or fuzz or load" -n 2 --dist loadfile $(PYTEST_ARGS)

# The fast tier: tests that start no Spark (tests/conftest.py decides and guards; docs/architecture.md).
unit: setup
	$(PY) -m pytest --unit $(PYTEST_ARGS)

conformance: setup
	$(PY) tests/conformance/conformance_runner.py $(CONFORMANCE_ARGS)

# --- the rest -----------------------------------------------------------------------------
bench: setup
	@$(PY) -c "import matplotlib" 2>/dev/null || { echo "make: installing matplotlib for the scale plot ..."; $(PY) -m pip install -q "matplotlib>=3.8"; }
	$(PY) tools/build_jar.py --bench
	$(PY) benchmarks/run.py $(BENCH) $(BENCH_ARGS)

lint: setup
	$(PY) -m ruff check python tests benchmarks tools examples
	$(PY) -m ruff format --check python tests benchmarks tools examples
	$(PY) -m mypy

clean:
	rm -rf $(VENV) build dist .jarbuild python/*.egg-info python/drillspark/jars/*.jar \
	  python/drillspark/jars/*.sha256 python/drillspark/jars/drivers python/drillspark/cp .pytest_cache .ruff_cache .mypy_cache spark-warehouse \
	  benchmarks/out
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
