"""Translation of a Drill logical plan to Spark DataFrames, the storage engines and the Drill
function catalog. Only the public DataFrame API is used, so this runs on Spark Connect too."""
