-- The jdbc plugin's MariaDB test database (tests/storage/conftest.py runs it as root in
-- `drilltest`). Drill 1.22's answers over these tables are pinned in tests/storage/test_jdbc_*.py.
CREATE TABLE all_types (
  id INT PRIMARY KEY,
  tiny_v TINYINT,
  small_v SMALLINT,
  medium_v MEDIUMINT,
  int_v INT,
  big_v BIGINT,
  uint_v INT UNSIGNED,
  ubig_v BIGINT UNSIGNED,
  dec_v DECIMAL(10, 2),
  float_v FLOAT,
  dbl_v DOUBLE,
  bool_v BOOLEAN,
  bit_v BIT(1),
  char_v CHAR(5),
  varchar_v VARCHAR(20),
  text_v TEXT,
  date_v DATE,
  time_v TIME,
  datetime_v DATETIME(3),
  ts_v TIMESTAMP(3) NULL,
  year_v YEAR,
  blob_v BLOB,
  varbinary_v VARBINARY(8),
  enum_v ENUM('small', 'large'),
  json_v JSON
);
INSERT INTO all_types VALUES
 (1, 1, 1, 1000, 100, 9000000000, 4000000000, 18000000000000000000, 12.50, 0.25, 1e10, TRUE,
  b'1', 'ab', 'alpha', 'first', '2000-01-31', '03:04:05', '2024-01-02 03:04:05.678',
  '2024-01-02 03:04:05.678', 2024, x'0102ff', x'00ff', 'small', '{"a": 1}'),
 (2, -128, -32768, -8388608, -2147483648, -9223372036854775808, 0, 0, -3.00, -1.5, -0.001, FALSE,
  b'0', 'cdefg', 'beta', 'ünïcode ✓', '1999-12-31', '23:59:59', '2024-06-30 23:59:59',
  '1970-01-02 00:00:00', 1999, x'', x'', 'large', '[]'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

CREATE TABLE orders (
  id INT PRIMARY KEY,
  customer VARCHAR(20) NOT NULL,
  amount DECIMAL(12, 2),
  quantity INT,
  ordered DATE,
  status VARCHAR(10)
);
INSERT INTO orders
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 40)
SELECT i,
       CONCAT('c', i % 4),
       CASE WHEN i % 7 = 0 THEN NULL ELSE ROUND(i * 3.25, 2) END,
       i % 5 + 1,
       DATE '2024-01-01' + INTERVAL (i % 30) DAY,
       CASE WHEN i % 3 = 0 THEN 'open' ELSE 'closed' END
FROM s;

CREATE TABLE MixedCase (Id INT, Label TEXT);
INSERT INTO MixedCase VALUES (1, 'one'), (2, 'two');
