"""Plan nodes that are registered user operators or functions run through
drillspark.operators (mapInArrow / Arrow UDFs)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import drillspark
from drillspark.operators import SingleInputOperator
from drillspark.plugins import unregister

from .conftest import values


@pytest.fixture
def scale_operator():
    @drillspark.operator("drill_test_scale")
    class Scale(SingleInputOperator):
        def configure(self):
            self.column = self.properties["column"]
            self.factor = float(self.properties["factor"])

        def output_schema(self, input_schema):
            i = input_schema.get_field_index(self.column)
            return input_schema.set(i, pa.field(self.column, pa.float64()))

        def process(self, batch):
            i = batch.schema.get_field_index(self.column)
            scaled = pc.multiply(batch.column(i).cast(pa.float64()), self.factor)
            return batch.set_column(i, self.column, scaled)

    yield Scale
    unregister("drill_test_scale")


@pytest.fixture
def plus_one():
    @drillspark.function("drill_test_plus_one", kind="scalar", returns="bigint")
    def fn(x: pa.Array) -> pa.Array:
        return pc.add(x, 1)

    yield fn
    unregister("drill_test_plus_one")


def test_registered_operator_runs_in_a_plan(run_plan, scale_operator):
    r = run_plan(
        [
            values(1, [{"v": 1, "w": "a"}, {"v": 4, "w": "b"}]),
            {"@id": 2, "op": "drill_test_scale", "input": 1, "column": "v", "factor": 2.5},
        ]
    )
    assert r.rows() == [{"v": 2.5, "w": "a"}, {"v": 10.0, "w": "b"}]


def test_registered_function_in_an_expression(run_plan, plus_one):
    r = run_plan(
        [
            values(1, [{"v": 1}, {"v": 41}]),
            {
                "@id": 2,
                "op": "project",
                "input": 1,
                "projections": [{"ref": "x", "expr": "drill_test_plus_one(v) * 2"}],
            },
        ]
    )
    assert r.rows() == [{"x": 4}, {"x": 84}]
