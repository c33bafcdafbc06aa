SELECT -007 AS a, -.5 AS b, - 00.25 AS c
