-- The jdbc plugin's PostgreSQL test database (tests/storage/conftest.py runs it as the
-- superuser in `drilltest`, then hands the tables to the `drill` user). Drill 1.22's answers
-- over these tables are pinned in tests/storage/test_jdbc_*.py.
CREATE TABLE public.all_types (
  id integer PRIMARY KEY,
  small_v smallint,
  int_v integer,
  big_v bigint,
  num_v numeric(10, 2),
  num_free numeric,
  real_v real,
  dbl_v double precision,
  bool_v boolean,
  char_v char(5),
  varchar_v varchar(20),
  text_v text,
  date_v date,
  time_v time,
  ts_v timestamp,
  tstz_v timestamptz,
  bytea_v bytea,
  uuid_v uuid,
  json_v json,
  jsonb_v jsonb,
  int_arr integer[],
  text_arr text[],
  interval_v interval
);
INSERT INTO public.all_types VALUES
 (1, 1, 100, 9000000000, 12.50, 3.14159265358979, 0.25, 1e10, true, 'ab', 'alpha', 'first',
  '2000-01-31', '03:04:05', '2024-01-02 03:04:05.678', '2024-01-02 03:04:05.678+00', '\x0102ff',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"b": [1, 2]}', '{1,2,3}', '{"x","y"}',
  '1 day 02:03:04'),
 (2, -32768, -2147483648, -9223372036854775808, -3.00, 123456789012345678901234567890.123456789,
  -1.5, -0.001, false, 'cdefg', 'beta', 'ünïcode ✓', '1999-12-31', '23:59:59.999',
  '2024-06-30 23:59:59', '1970-01-01 00:00:00+00', '\x', '00000000-0000-0000-0000-000000000000',
  '[]', '{}', '{}', '{}', '-3 mons'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL);

CREATE SCHEMA sales;
CREATE TABLE sales.orders (
  id integer PRIMARY KEY,
  customer varchar(20) NOT NULL,
  amount numeric(12, 2),
  quantity integer,
  ordered date,
  status varchar(10)
);
INSERT INTO sales.orders
SELECT i,
       'c' || (i % 4),
       CASE WHEN i % 7 = 0 THEN NULL ELSE round((i * 3.25)::numeric, 2) END,
       i % 5 + 1,
       DATE '2024-01-01' + (i % 30),
       CASE WHEN i % 3 = 0 THEN 'open' ELSE 'closed' END
FROM generate_series(1, 40) AS i;

CREATE TABLE public."MixedCase" ("Id" integer, "Label" text);
INSERT INTO public."MixedCase" VALUES (1, 'one'), (2, 'two');

CREATE VIEW sales.big_orders AS SELECT id, customer, amount FROM sales.orders WHERE amount > 100;

ALTER SCHEMA sales OWNER TO drill;
ALTER TABLE public.all_types OWNER TO drill;
ALTER TABLE sales.orders OWNER TO drill;
ALTER TABLE public."MixedCase" OWNER TO drill;
ALTER VIEW sales.big_orders OWNER TO drill;
