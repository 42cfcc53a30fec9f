-- Argo CD health of a Berth object (group berth.dev, every kind), read from its kstatus conditions the
-- way Flux and `kubectl wait` read them:
--   Stalled=True                                    -> Degraded (Berth gave up until the spec changes)
--   status not yet written, or written for an older
--   generation, or Ready not True                   -> Progressing
--   Ready=True for the current generation           -> Healthy
-- Argo CD runs this with gopher-lua (Lua 5.1): no goto, no integer division, no bit operators.
local hs = {}

local function findCondition(conditions, conditionType)
  for _, condition in ipairs(conditions) do
    if condition.type == conditionType then
      return condition
    end
  end
  return nil
end

local function describe(condition, fallback)
  if condition ~= nil then
    if condition.message ~= nil and condition.message ~= "" then
      return condition.message
    end
    if condition.reason ~= nil and condition.reason ~= "" then
      return condition.reason
    end
  end
  return fallback
end

-- A condition written for an older generation says nothing about the current spec.
local function isStale(condition, generation)
  return generation ~= nil and condition.observedGeneration ~= nil and condition.observedGeneration < generation
end

local generation = nil
if obj.metadata ~= nil then
  generation = obj.metadata.generation
  if obj.metadata.deletionTimestamp ~= nil then
    hs.status = "Progressing"
    hs.message = "Being deleted"
    return hs
  end
end

local status = obj.status
if status == nil or status.conditions == nil or #status.conditions == 0 then
  hs.status = "Progressing"
  hs.message = "Waiting for Berth to report the status"
  return hs
end

if generation ~= nil and status.observedGeneration ~= nil and status.observedGeneration < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for Berth to observe generation " .. string.format("%d", generation)
  return hs
end

local stalled = findCondition(status.conditions, "Stalled")
if stalled ~= nil and stalled.status == "True" and not isStale(stalled, generation) then
  hs.status = "Degraded"
  hs.message = describe(stalled, "Stalled")
  return hs
end

local ready = findCondition(status.conditions, "Ready")
if ready ~= nil and ready.status == "True" and not isStale(ready, generation) then
  hs.status = "Healthy"
  hs.message = describe(ready, "Ready")
  return hs
end

local reconciling = findCondition(status.conditions, "Reconciling")
hs.status = "Progressing"
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = describe(reconciling, "Reconciling")
else
  hs.message = describe(ready, "Waiting for the Ready condition")
end
return hs
