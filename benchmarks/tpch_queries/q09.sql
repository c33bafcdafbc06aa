-- Product type profit measure
SELECT nation, o_year, sum(amount) AS sum_profit
FROM (
  SELECT n.n_name AS nation, extract(year FROM o.o_orderdate) AS o_year,
    l.l_extendedprice * (1 - l.l_discount) - ps.ps_supplycost * l.l_quantity AS amount
  FROM dfs.tpch.`part` p, dfs.tpch.`supplier` s, dfs.tpch.`lineitem` l,
    dfs.tpch.`partsupp` ps, dfs.tpch.`orders` o, dfs.tpch.`nation` n
  WHERE s.s_suppkey = l.l_suppkey AND ps.ps_suppkey = l.l_suppkey
    AND ps.ps_partkey = l.l_partkey AND p.p_partkey = l.l_partkey
    AND o.o_orderkey = l.l_orderkey AND s.s_nationkey = n.n_nationkey
    AND p.p_name LIKE '%green%') AS profit
GROUP BY nation, o_year
ORDER BY nation, o_year DESC
