-- SPDX-License-Identifier: GPL-2.0-or-later
-- job_submit/lua doing what a site can do without qosdeny: the per-job GPU
-- caps of the worked example's policy (docs/worked-example.md: QoS
-- research 8, interactive 4), written into the script because Slurm
-- 22.05's Lua API exposes no QoS limits and no running usage (so no
-- per-user or group caps).  The
-- submission benchmark (tests/bench/submit.sh) runs it against
-- job_submit/qosdeny; it parses the GPU request the way a real site's
-- script has to, from the strings slurmctld hands to Lua.

local cap = { research = 8, interactive = 4 }

local NO_VAL = 4294967294
local NO_VAL16 = 65534

local suffix = { [""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3,
	t = 1024 ^ 4, p = 1024 ^ 5 }

-- "2", "2k": a count, or nil
local function count(s)
	local n, sfx = string.match(s, "^(%d+)(%a*)$")
	if n == nil or suffix[string.lower(sfx)] == nil then
		return nil
	end
	return tonumber(n) * suffix[string.lower(sfx)]
end

-- GPUs named in one tres_per_* string: clients send comma-separated items
-- "gres:gpu", "gres:gpu:2", "gres:gpu:a100", "gres:gpu:a100:2" (--gres,
-- --gpus*, all prefixed with "gres:").  nil when an item is malformed.
local function gpus_in(s)
	local total = 0
	if s == nil then
		return 0
	end
	for item in string.gmatch(s, "[^,]+") do
		local name, rest = string.match(item, "^gres[:/]([^:]+):?(.*)$")
		if name == "gpu" then
			local n = 1
			if rest ~= "" then
				local first, last = string.match(rest, "^([^:]*):?(.-)$")
				if last ~= "" then
					n = count(last)
				elseif count(first) then
					n = count(first)
				end
				if n == nil then
					return nil
				end
			end
			total = total + n
		end
	end
	return total
end

local function set(v, unset, default)
	if v == nil or v == unset or v == 0 then
		return default
	end
	return v
end

-- The job's GPU total: per job, plus per node x nodes, per task x tasks,
-- per socket x sockets x nodes.  Unset node, task and socket counts are
-- taken as their minimum, 1 (the script cannot see the nodes).
local function job_gpus(job)
	local nodes = set(job.min_nodes, NO_VAL, 1)
	local tasks = set(job.num_tasks, NO_VAL, nodes)
	local sockets = set(job.sockets_per_node, NO_VAL16, 1)
	local per_job = gpus_in(job.tres_per_job)
	local per_node = gpus_in(job.tres_per_node)
	local per_task = gpus_in(job.tres_per_task)
	local per_socket = gpus_in(job.tres_per_socket)
	if not (per_job and per_node and per_task and per_socket) then
		return nil
	end
	return per_job + per_node * nodes + per_task * tasks +
		per_socket * sockets * nodes
end

function slurm_job_submit(job, part_list, submit_uid)
	local qos = job.qos or job.default_qos
	local limit = qos and cap[qos]
	if limit == nil then
		return slurm.SUCCESS
	end
	local gpus = job_gpus(job)
	if gpus == nil then
		slurm.log_user("invalid GPU request")
		return slurm.ERROR
	end
	if gpus > limit then
		slurm.log_user(string.format(
			"QOS %s allows at most %d GPUs per job, this job asks for %d",
			qos, limit, gpus))
		return slurm.ESLURM_ACCOUNTING_POLICY
	end
	return slurm.SUCCESS
end

function slurm_job_modify(job, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end

return slurm.SUCCESS
