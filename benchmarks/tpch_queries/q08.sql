-- National market share
SELECT o_year, sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) / sum(volume) AS mkt_share
FROM (
  SELECT extract(year FROM o.o_orderdate) AS o_year,
    l.l_extendedprice * (1 - l.l_discount) AS volume, n2.n_name AS nation
  FROM dfs.tpch.`part` p, dfs.tpch.`supplier` s, dfs.tpch.`lineitem` l, dfs.tpch.`orders` o,
    dfs.tpch.`customer` c, dfs.tpch.`nation` n1, dfs.tpch.`nation` n2, dfs.tpch.`region` r
  WHERE p.p_partkey = l.l_partkey AND s.s_suppkey = l.l_suppkey AND l.l_orderkey = o.o_orderkey
    AND o.o_custkey = c.c_custkey AND c.c_nationkey = n1.n_nationkey
    AND n1.n_regionkey = r.r_regionkey AND r.r_name = 'AMERICA'
    AND s.s_nationkey = n2.n_nationkey
    AND o.o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31'
    AND p.p_type = 'ECONOMY ANODIZED STEEL') AS all_nations
GROUP BY o_year
ORDER BY o_year
