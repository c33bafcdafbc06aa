"""Invalid plans: every error names the operator @id, the JSON path and the line/column.

Each case is a small plan text; the expected errors list (op_id, path, line, column, the text
found at that line/column in the plan, message). The text check makes the location
independent of the parser's own bookkeeping.
"""

from __future__ import annotations

import pytest

from drillspark.plan import PlanError, parse

STORAGE = """{
  head: {type: "APACHE_DRILL_LOGICAL", version: 1, generator: {type: "manual", info: "na"}},
  storage: {cp: {type: "classpath"}, console: {type: "console"}},
  query: ["""
END = """
  ]
}"""


def plan(body):  # body lines start at line 5
    return STORAGE + "\n" + body + END


CASES = {
    "unknown_operator": plan("""    {@id: 1, op: "scna", storageengine: "cp"}"""),
    "missing_op": plan("""    {@id: 1, storageengine: "cp"}"""),
    "op_not_string": plan("""    {@id: 1, op: 5}"""),
    "missing_storageengine": plan("""    {@id: 1, op: "scan", selection: {}}"""),
    "wrong_type_storageengine": plan("""    {@id: 1, op: "scan", storageengine: 5}"""),
    "unknown_property": plan("""    {@id: 1, op: "scan", storageengine: "cp", selectoin: {}}"""),
    "unknown_storage_engine": plan(
        """    {@id: 1, op: "scan", storageengine: "cpp", selection: {}}"""
    ),
    "unknown_store_engine": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "store", input: 1, storageEngine: "consol", target: {}}"""),
    "missing_input": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", expr: "a > 1"}"""),
    "unknown_input": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", input: 7, expr: "a > 1"}"""),
    "input_not_id": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", input: "one", expr: "a > 1"}"""),
    "sink_as_input": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "store", input: 1, target: {}},
    {@id: 3, op: "filter", input: 2, expr: "a > 1"}"""),
    "cycle": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", input: 3, expr: "a > 1"},
    {@id: 3, op: "project", input: 2, projections: [{ref: "b", expr: "a"}]}"""),
    "self_input": plan("""    {@id: 1, op: "filter", input: 1, expr: "a > 1"}"""),
    "duplicate_id": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 1, op: "values", content: [{a: 2}]}"""),
    "bad_id": plan("""    {@id: "x", op: "values", content: [{a: 1}]}"""),
    "union_one_input": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "union", inputs: [1], distinct: true}"""),
    "union_inputs_not_list": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "union", inputs: 1}"""),
    "union_distinct_wrong": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "values", content: [{a: 2}]},
    {@id: 3, op: "union", inputs: [1, 2], distinct: "maybe"}"""),
    "source_with_input": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "scan", input: 1, storageengine: "cp"}"""),
    "single_with_inputs": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", inputs: [1], expr: "a > 1"}"""),
    "union_with_input": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "union", input: 1, inputs: [1, 1]}"""),
    "join_with_inputs": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "join", inputs: [1, 1], left: 1, right: 1, type: "inner"}"""),
    "join_missing_right": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "join", left: 1, type: "inner"}"""),
    "join_bad_type": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "values", content: [{a: 1}]},
    {@id: 3, op: "join", left: 1, right: 2, type: "cross"}"""),
    "join_bad_relationship": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "values", content: [{a: 1}]},
    {@id: 3, op: "join", left: 1, right: 2, type: "inner",
     conditions: [{relationship: "=", left: "a", right: "a"}]}"""),
    "join_condition_expr_error": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "values", content: [{a: 1}]},
    {@id: 3, op: "join", left: 1, right: 2, type: "inner",
     conditions: [{relationship: "==", left: "a +", right: "a"}]}"""),
    "filter_expr_syntax": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", input: 1, expr: "a > 1 and and b"}"""),
    "filter_expr_not_string": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", input: 1, expr: 5}"""),
    "expr_chained_comparison": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", input: 1, expr: "1 < a < 3"}"""),
    "expr_escape_in_json": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "filter", input: 1, expr: "a == \\"x\\" ) "}"""),
    "project_empty": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "project", input: 1, projections: []}"""),
    "project_missing_ref": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "project", input: 1, projections: [{expr: "a"}]}"""),
    "project_extra_key": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "project", input: 1, projections: [{ref: "b", expr: "a", alias: "c"}]}"""),
    "order_bad_direction": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "order", input: 1, orderings: [{order: "up", expr: "a"}]}"""),
    "order_bad_null_direction": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "order", input: 1, orderings: [{expr: "a", nullDirection: "MIDDLE"}]}"""),
    "limit_negative_first": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "limit", input: 1, first: -1, last: 5}"""),
    "limit_last_before_first": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "limit", input: 1, first: 10, last: 5}"""),
    "limit_not_number": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "limit", input: 1, first: 0, last: "ten"}"""),
    "values_content_not_records": plan("""    {@id: 1, op: "values", content: [1, 2]}"""),
    "values_missing_content": plan("""    {@id: 1, op: "values"}"""),
    "flatten_missing_name": plan("""    {@id: 1, op: "values", content: [{a: [1]}]},
    {@id: 2, op: "flatten", input: 1, expr: "a"}"""),
    "grouping_nested_aggregate": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "groupingaggregate", input: 1, keys: [{ref: "a", expr: "a"}],
     exprs: [{ref: "s", expr: "sum(count(a)) + 1"}]}"""),
    "window_start_after_end": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "window", input: 1, aggregations: [{ref: "s", expr: "sum(a)"}], start: 2, end: 0}"""),
    "old_operator_in_today": plan("""    {@id: 1, op: "values", content: [{a: 1}]},
    {@id: 2, op: "segment", input: 1, ref: "s", exprs: ["a"]}"""),
    "sequence_in_today": plan("""    {op: "sequence", do: [{op: "values", content: [{a: 1}]}]}"""),
    "json_syntax": plan("""    {@id: 1, op: "values", content: [{a: 1}]]"""),
    "unknown_top_level": """{
  head: {type: "APACHE_DRILL_LOGICAL", version: 1},
  querry: []
}""",
    "bad_head_type": """{
  head: {type: "LOGICAL", version: 1},
  query: [{@id: 1, op: "values", content: [{a: 1}]}]
}""",
    "storage_without_type": """{
  storage: {cp: {root: "/"}},
  query: [{@id: 1, op: "values", content: [{a: 1}]}]
}""",
    "several_errors": plan("""    {@id: 1, op: "scan", storageengine: "nope"},
    {@id: 2, op: "filter", input: 9, expr: "a >"},
    {@id: 3, op: "limit", input: 1, first: 5, last: 1}"""),
}

OLD = """{
  head: {type: "APACHE_DRILL_LOGICAL", version: 1, generator: {type: "manual", info: "na"}},
  storage: {cp: {type: "classpath"}, console: {type: "console"}},
  query: [
    {op: "sequence", @id: 10, do: ["""
OLD_END = """
    ]}
  ]
}"""


def seq(body):  # steps start at line 6
    return OLD + "\n" + body + OLD_END


CASES_2013 = {
    "seq_step_with_input": seq("""      {op: "scan", storageengine: "cp", ref: "d", selection: {path: "/donuts.json"}},
      {op: "filter", input: 1, expr: "d.ppu < 1"}"""),
    "seq_step_with_id": seq("""      {op: "scan", @id: 3, storageengine: "cp", ref: "d"},
      {op: "filter", expr: "d.ppu < 1"}"""),
    "seq_first_not_source": seq("""      {op: "filter", expr: "d.ppu < 1"},
      {op: "store", storageengine: "console", target: {}}"""),
    "seq_join_inside": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "join", left: 1, right: 2, type: "inner"}"""),
    "seq_sink_in_middle": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "store", storageengine: "console", target: {}},
      {op: "filter", expr: "d.ppu < 1"}"""),
    "seq_empty": seq(""""""),
    "seq_store_without_engine": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "store", target: {}}"""),
    "windowframe_start_after_end": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "windowframe", start: 0, end: -2, ref: {segment: "w.seg", position: "w.pos"}}"""),
    "windowframe_unbounded_both": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "windowframe", ref: {segment: "w.seg", position: "w.pos"}}"""),
    "windowframe_ref_missing_position": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "windowframe", start: -2, end: 0, ref: {segment: "w.seg"}}"""),
    "collapsing_nested_aggregate": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "segment", ref: "s", exprs: ["d.ppu"]},
      {op: "collapsingaggregate", within: "s", carryovers: ["d.ppu"],
       aggregations: [{ref: "d.x", expr: "max(d.a) + sum(min(d.b))"}]}"""),
    "runningaggregate_nested": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "runningaggregate", aggregations: [{ref: "d.x", expr: "sum(count(d.a))"}]}"""),
    "ref_not_a_path": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "transform", transforms: [{ref: "a + b", expr: "d.a"}]}"""),
    "values_in_2013": seq("""      {op: "values", content: [{a: 1}]}"""),
    "null_collation_bad": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "order", orderings: [{order: "asc", expr: "d.a", nullCollation: "middle"}]}"""),
    "dq_string_ok_but_bad_expr": seq("""      {op: "scan", storageengine: "cp", ref: "d"},
      {op: "filter", expr: "d.name == \\"x\\" &&"}"""),
}

# Plans that need a forced dialect to show the error.
DIALECT = {"old_operator_in_today": "drill", "sequence_in_today": "drill"}

EXPECTED = {
    "single_with_inputs": [
        (
            2,
            "$.query[1]",
            6,
            5,
            "{@id: 2,",
            "filter: missing property 'input' (the @id of the operator it reads)",
        ),
        (
            2,
            "$.query[1].inputs",
            6,
            28,
            "inputs: ",
            "filter reads exactly one input, given as 'input' (one @id), not 'inputs'",
        ),
    ],
    "union_with_input": [
        (
            2,
            "$.query[1].input",
            6,
            27,
            "input: 1",
            "union reads two or more inputs, given as 'inputs' (a list of @ids), not 'input'",
        ),
    ],
    "join_with_inputs": [
        (
            2,
            "$.query[1].inputs",
            6,
            26,
            "inputs: ",
            "join reads exactly two inputs, given as 'left' and 'right', not 'inputs'",
        ),
    ],
    "unknown_operator": [
        (1, "$.query[0].op", 5, 18, '"scna", ', "unknown operator 'scna'; did you mean 'scan'?"),
    ],
    "missing_op": [
        (1, "$.query[0]", 5, 5, "{@id: 1,", "operator has no 'op' property (the operator name)"),
    ],
    "op_not_string": [
        (1, "$.query[0].op", 5, 18, "5}", "'op' must be a string, not a number"),
    ],
    "missing_storageengine": [
        (
            1,
            "$.query[0]",
            5,
            5,
            "{@id: 1,",
            "scan: missing property 'storageengine' (the storage engine name)",
        ),
    ],
    "wrong_type_storageengine": [
        (
            1,
            "$.query[0].storageengine",
            5,
            41,
            "5}",
            "storageengine must be a string, not a number",
        ),
    ],
    "unknown_property": [
        (
            1,
            "$.query[0].selectoin",
            5,
            47,
            "selectoi",
            "unknown property 'selectoin' of scan; did you mean 'selection'?",
        ),
    ],
    "unknown_storage_engine": [
        (
            1,
            "$.query[0].storageengine",
            5,
            41,
            '"cpp", s',
            "unknown storage engine 'cpp' (defined in storage: 'console', 'cp'); did you mean 'cp'?",
        ),
    ],
    "unknown_store_engine": [
        (
            2,
            "$.query[1].storageEngine",
            6,
            52,
            '"consol"',
            "unknown storage engine 'consol' (defined in storage: 'console', 'cp'); did you mean 'console'?",
        ),
    ],
    "missing_input": [
        (
            2,
            "$.query[1]",
            6,
            5,
            "{@id: 2,",
            "filter: missing property 'input' (the @id of the operator it reads)",
        ),
    ],
    "unknown_input": [
        (
            2,
            "$.query[1].input",
            6,
            35,
            "7, expr:",
            "input 7 is not the @id of any operator (known: 1, 2)",
        ),
    ],
    "input_not_id": [
        (2, "$.query[1].input", 6, 35, '"one", e', "input must be an operator @id, not 'one'"),
    ],
    "sink_as_input": [
        (
            3,
            "$.query[2].input",
            7,
            35,
            "2, expr:",
            "input 2 is a sink (store): a sink has no output to read",
        ),
    ],
    "cycle": [
        (2, "$.query[1]", 6, 5, "{@id: 2,", "cycle in the plan: 2 -> 3 -> 2"),
    ],
    "self_input": [
        (1, "$.query[0].input", 5, 35, "1, expr:", "operator 1 reads itself"),
    ],
    "duplicate_id": [
        (
            1,
            "$.query[1].@id",
            6,
            11,
            '1, op: "',
            "duplicate @id 1 (also used by the operator at $.query[0])",
        ),
    ],
    "bad_id": [
        (None, "$.query[0].@id", 5, 11, '"x", op:', "@id must be an integer, not 'x'"),
    ],
    "union_one_input": [
        (2, "$.query[1].inputs", 6, 35, "[1], dis", "union combines two or more inputs, got 1"),
    ],
    "union_inputs_not_list": [
        (2, "$.query[1].inputs", 6, 35, "1}", "inputs must be a list, not a number"),
    ],
    "union_distinct_wrong": [
        (
            3,
            "$.query[2].distinct",
            7,
            53,
            '"maybe"}',
            "distinct must be true or false, not 'maybe'",
        ),
    ],
    "source_with_input": [
        (
            2,
            "$.query[1].input",
            6,
            26,
            "input: 1",
            "scan is a source operator: it reads no input, so 'input' is not allowed",
        ),
    ],
    "join_missing_right": [
        (
            2,
            "$.query[1]",
            6,
            5,
            "{@id: 2,",
            "join: missing property 'right' (the @id of the right input)",
        ),
    ],
    "join_bad_type": [
        (
            3,
            "$.query[2].type",
            7,
            51,
            '"cross"}',
            "join type must be one of inner, left, right, full (or 2013's outer), not 'cross'",
        ),
    ],
    "join_bad_relationship": [
        (
            3,
            "$.query[2].conditions[0].relationship",
            8,
            34,
            '"=", lef',
            "relationship must be one of == != < <= > >= IS NOT DISTINCT FROM, not '='",
        ),
    ],
    "join_condition_expr_error": [
        (
            3,
            "$.query[2].conditions[0].left",
            8,
            50,
            '", right',
            "expression syntax error at column 4: unexpected end of expression in 'a +'",
        ),
    ],
    "filter_expr_syntax": [
        (
            2,
            "$.query[1].expr",
            6,
            59,
            'b"}',
            "expression syntax error at column 15: unexpected 'b' in 'a > 1 and and b'",
        ),
    ],
    "filter_expr_not_string": [
        (2, "$.query[1].expr", 6, 44, "5}", "expr must be an expression string, not a number"),
    ],
    "expr_chained_comparison": [
        (
            2,
            "$.query[1].expr",
            6,
            51,
            '< 3"}',
            "expression syntax error at column 7: unexpected '<' (comparisons do not chain: parenthesise one side) in '1 < a < 3'",
        ),
    ],
    "expr_escape_in_json": [
        (
            2,
            "$.query[1].expr",
            6,
            50,
            '\\"x\\" ) ',
            "expression syntax error at column 6: unexpected character '\"' (strings are 'single-quoted' in today's grammar) in 'a == \"x\" ) '",
        ),
    ],
    "project_empty": [
        (
            2,
            "$.query[1].projections",
            6,
            52,
            "[]}",
            "Project did not provide any projection selections.",
        ),
    ],
    "project_missing_ref": [
        (
            2,
            "$.query[1].projections[0]",
            6,
            53,
            '{expr: "',
            "projections[0]: missing property 'ref'",
        ),
    ],
    "project_extra_key": [
        (
            2,
            "$.query[1].projections[0].alias",
            6,
            75,
            'alias: "',
            "unknown property 'alias' in projections[0]",
        ),
    ],
    "order_bad_direction": [
        (
            2,
            "$.query[1].orderings[0].order",
            6,
            57,
            '"up", ex',
            "order must be ASC or DESC, not 'up'",
        ),
    ],
    "order_bad_null_direction": [
        (
            2,
            "$.query[1].orderings[0].nullDirection",
            6,
            76,
            '"MIDDLE"',
            "nullDirection must be FIRST, LAST or UNSPECIFIED, not 'MIDDLE'",
        ),
    ],
    "limit_negative_first": [
        (2, "$.query[1].first", 6, 44, "-1, last", "limit first must be 0 or more, not -1"),
    ],
    "limit_last_before_first": [
        (
            2,
            "$.query[1].last",
            6,
            54,
            "5}",
            "limit last (5) is before first (10); the range is [first, last)",
        ),
    ],
    "limit_not_number": [
        (2, "$.query[1].last", 6, 53, '"ten"}', "last must be an integer, not 'ten'"),
    ],
    "values_content_not_records": [
        (
            1,
            "$.query[0].content",
            5,
            37,
            "[1, 2]}",
            "content must be a JSON array of records (objects), not a list",
        ),
    ],
    "values_missing_content": [
        (
            1,
            "$.query[0]",
            5,
            5,
            "{@id: 1,",
            "values: missing property 'content' (content attribute is required for source operator 'values')",
        ),
    ],
    "flatten_missing_name": [
        (
            2,
            "$.query[1]",
            6,
            5,
            "{@id: 2,",
            "flatten: missing property 'name' (where each element goes; 2013 also 'ref')",
        ),
    ],
    "grouping_nested_aggregate": [
        (
            2,
            "$.query[1].exprs[0].expr",
            7,
            36,
            "count(a)",
            "aggregate count() is nested inside aggregate sum(): an aggregate expression must never nest one aggregate within another",
        ),
    ],
    "window_start_after_end": [
        (
            2,
            "$.query[1].start",
            6,
            89,
            "2, end: ",
            "window start (2) is after end (0); start must be <= end (e.g. start -2, end 0: the two records before and the current one)",
        ),
    ],
    "old_operator_in_today": [
        (
            2,
            "$.query[1].op",
            6,
            18,
            '"segment',
            "operator 'segment' exists only in 2013 plans (Drill removed it); today's plans use 'groupingaggregate'",
        ),
    ],
    "sequence_in_today": [
        (
            None,
            "$.query[0].op",
            5,
            6,
            'op: "seq',
            "operator 'sequence' exists only in 2013 plans (Drill removed it in 2014); write the operators with explicit inputs",
        ),
    ],
    "json_syntax": [
        (None, "$", 5, 45, "]", "JSON syntax error: expected ',' or '}' in object"),
    ],
    "unknown_top_level": [
        (None, "$", 1, 1, "{", "missing property 'query' (the list of operators)"),
        (
            None,
            "$.querry",
            3,
            3,
            "querry: ",
            "unknown top-level property 'querry'; did you mean 'query'?; a plan has head, storage and query",
        ),
    ],
    "bad_head_type": [
        (
            None,
            "$.head.type",
            2,
            16,
            '"LOGICAL',
            "head.type 'LOGICAL' is not a plan type; expected APACHE_DRILL_LOGICAL",
        ),
    ],
    "storage_without_type": [
        (None, "$.storage.cp", 2, 17, '{root: "', "storage engine 'cp' has no \"type\""),
    ],
    "several_errors": [
        (
            1,
            "$.query[0].storageengine",
            5,
            41,
            '"nope"},',
            "unknown storage engine 'nope' (defined in storage: 'console', 'cp')",
        ),
        (
            2,
            "$.query[1].expr",
            6,
            48,
            '"},',
            "expression syntax error at column 4: unexpected end of expression in 'a >'",
        ),
        (
            3,
            "$.query[2].last",
            7,
            53,
            "1}",
            "limit last (1) is before first (5); the range is [first, last)",
        ),
    ],
    "seq_step_with_input": [
        (
            10,
            "$.query[0].do[1].input",
            7,
            22,
            "input: 1",
            "'input' is not allowed inside a sequence (the sequence connects its steps)",
        ),
    ],
    "seq_step_with_id": [
        (
            11,
            "$.query[0].do[0].@id",
            6,
            20,
            "@id: 3, ",
            "'@id' is not allowed inside a sequence (the sequence numbers its steps)",
        ),
    ],
    "seq_first_not_source": [
        (
            11,
            "$.query[0].do[0]",
            6,
            7,
            '{op: "fi',
            "the first step of a sequence without 'input' must be a source operator (scan, constant), not 'filter'",
        ),
    ],
    "seq_join_inside": [
        (
            10,
            "$.query[0].do[1]",
            7,
            7,
            '{op: "jo',
            "All operators after the first must be single input operators: step 1 is 'join'",
        ),
    ],
    "seq_sink_in_middle": [
        (
            10,
            "$.query[0].do[2]",
            8,
            7,
            '{op: "fi',
            "only the last step of a sequence can be a sink: step 1 ('store') comes before step 2",
        ),
    ],
    "seq_empty": [
        (
            10,
            "$.query[0]",
            5,
            5,
            '{op: "se',
            "sequence: 'do' must be a non-empty list of operators (A sequence must include at least one operator.)",
        ),
    ],
    "seq_store_without_engine": [
        (
            10,
            "$.query[0].do[1]",
            7,
            7,
            '{op: "st',
            "store: missing property 'storageengine' (the storage engine name)",
        ),
    ],
    "windowframe_start_after_end": [
        (
            10,
            "$.query[0].do[1].start",
            7,
            34,
            "0, end: ",
            "windowframe start (0) is after end (-2); start must be <= end (e.g. start -2, end 0: the two records before and the current one)",
        ),
    ],
    "windowframe_unbounded_both": [
        (10, "$.query[0].do[1]", 7, 7, '{op: "wi', "windowframe needs start or end (or both)"),
    ],
    "windowframe_ref_missing_position": [
        (10, "$.query[0].do[1].ref", 7, 51, "{segment", "ref: missing property 'position'"),
    ],
    "collapsing_nested_aggregate": [
        (
            10,
            "$.query[0].do[2].aggregations[0].expr",
            9,
            58,
            "min(d.b)",
            "aggregate min() is nested inside aggregate sum(): an aggregate expression must never nest one aggregate within another",
        ),
    ],
    "runningaggregate_nested": [
        (
            10,
            "$.query[0].do[1].aggregations[0].expr",
            7,
            71,
            "count(d.",
            "aggregate count() is nested inside aggregate sum(): an aggregate expression must never nest one aggregate within another",
        ),
    ],
    "ref_not_a_path": [
        (
            10,
            "$.query[0].do[1].transforms[0].ref",
            7,
            44,
            '"a + b",',
            "ref must be a field reference like a.b, not the expression 'a + b'",
        ),
    ],
    "values_in_2013": [
        (
            10,
            "$.query[0].do[0].op",
            6,
            12,
            '"values"',
            "plan mixes dialects: operator 'values' is only in today's Drill, but the rest of the plan uses the 2013 dialect (sequence @10)",
        ),
    ],
    "null_collation_bad": [
        (
            10,
            "$.query[0].do[1].orderings[0].nullCollation",
            7,
            76,
            '"middle"',
            "nullCollation must be first or last, not 'middle'",
        ),
    ],
    "dq_string_ok_but_bad_expr": [
        (
            10,
            "$.query[0].do[1].expr",
            7,
            47,
            '"}',
            "expression syntax error at column 17: unexpected end of expression in 'd.name == \"x\" &&'",
        ),
    ],
}


def test_there_are_at_least_40_invalid_plans():
    assert len(EXPECTED) >= 40
    assert set(EXPECTED) == set(CASES) | set(CASES_2013)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_invalid_plan_error_locations(name: str):
    text = {**CASES, **CASES_2013}[name]
    with pytest.raises(PlanError) as caught:
        parse(text, dialect=DIALECT.get(name))
    lines = text.split("\n")
    got = []
    for e in caught.value.errors:
        found = lines[e.line - 1][e.column - 1 : e.column + 7] if e.line else None
        got.append((e.op_id, e.path, e.line, e.column, found, e.message))
    assert got == EXPECTED[name]
    # the errors also appear in the exception text, one per line
    for e in caught.value.errors:
        assert str(e) in str(caught.value)
