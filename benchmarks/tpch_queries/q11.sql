-- Important stock identification (FRACTION 0.0001 at scale factor 1)
SELECT ps.ps_partkey, sum(ps.ps_supplycost * ps.ps_availqty) AS `value`
FROM dfs.tpch.`partsupp` ps, dfs.tpch.`supplier` s, dfs.tpch.`nation` n
WHERE ps.ps_suppkey = s.s_suppkey AND s.s_nationkey = n.n_nationkey AND n.n_name = 'GERMANY'
GROUP BY ps.ps_partkey
HAVING sum(ps.ps_supplycost * ps.ps_availqty) > (
  SELECT sum(ps2.ps_supplycost * ps2.ps_availqty) * 0.0001
  FROM dfs.tpch.`partsupp` ps2, dfs.tpch.`supplier` s2, dfs.tpch.`nation` n2
  WHERE ps2.ps_suppkey = s2.s_suppkey AND s2.s_nationkey = n2.n_nationkey
    AND n2.n_name = 'GERMANY')
ORDER BY `value` DESC
