-- Minimum cost supplier
SELECT s.s_acctbal, s.s_name, n.n_name, p.p_partkey, p.p_mfgr, s.s_address, s.s_phone, s.s_comment
FROM dfs.tpch.`part` p, dfs.tpch.`supplier` s, dfs.tpch.`partsupp` ps, dfs.tpch.`nation` n,
  dfs.tpch.`region` r
WHERE p.p_partkey = ps.ps_partkey AND s.s_suppkey = ps.ps_suppkey AND p.p_size = 15
  AND p.p_type LIKE '%BRASS' AND s.s_nationkey = n.n_nationkey
  AND n.n_regionkey = r.r_regionkey AND r.r_name = 'EUROPE'
  AND ps.ps_supplycost = (
    SELECT min(ps2.ps_supplycost)
    FROM dfs.tpch.`partsupp` ps2, dfs.tpch.`supplier` s2, dfs.tpch.`nation` n2,
      dfs.tpch.`region` r2
    WHERE p.p_partkey = ps2.ps_partkey AND s2.s_suppkey = ps2.ps_suppkey
      AND s2.s_nationkey = n2.n_nationkey AND n2.n_regionkey = r2.r_regionkey
      AND r2.r_name = 'EUROPE')
ORDER BY s.s_acctbal DESC, n.n_name, s.s_name, p.p_partkey
LIMIT 100
