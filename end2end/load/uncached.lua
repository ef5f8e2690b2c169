-- Every request a URL of its own (?n=…): no page is served from the rendered-page memory, so
-- this measures rendering. The summary line as percentiles.lua prints it.
local n = 0
request = function()
  n = n + 1
  local sep = string.find(wrk.path, "?", 1, true) and "&" or "?"
  return wrk.format(nil, wrk.path .. sep .. "n=" .. n)
end
dofile((os.getenv("LOAD_DIR") or ".") .. "/percentiles.lua")
