"""The `drillspark` command. Each subcommand lives in its own module with a `register`
function; `COMMANDS` below lists them in the order `--help` shows them."""
