-- Large volume customer
SELECT c.c_name, c.c_custkey, o.o_orderkey, o.o_orderdate, o.o_totalprice, sum(l.l_quantity)
  AS sum_qty
FROM dfs.tpch.`customer` c, dfs.tpch.`orders` o, dfs.tpch.`lineitem` l
WHERE o.o_orderkey IN (
    SELECT l2.l_orderkey FROM dfs.tpch.`lineitem` l2
    GROUP BY l2.l_orderkey HAVING sum(l2.l_quantity) > 300)
  AND c.c_custkey = o.o_custkey AND o.o_orderkey = l.l_orderkey
GROUP BY c.c_name, c.c_custkey, o.o_orderkey, o.o_orderdate, o.o_totalprice
ORDER BY o.o_totalprice DESC, o.o_orderdate
LIMIT 100
