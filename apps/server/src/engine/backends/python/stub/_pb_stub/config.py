"""pb_utils.ModelConfig (what auto_complete_config edits) and the config lookup helpers."""

import json

_INPUT_KEYS = ("name", "data_type", "dims", "optional")
_OUTPUT_KEYS = ("name", "data_type", "dims")


class ModelConfig:
    """The model's configuration as a dict; auto_complete_config may fill in its signature and batching."""

    def __init__(self, model_config):
        config = json.loads(model_config) if isinstance(model_config, (str, bytes)) else dict(model_config)
        config.setdefault("name", "")
        config.setdefault("max_batch_size", 0)
        config.setdefault("input", [])
        config.setdefault("output", [])
        self._model_config = config

    def as_dict(self):
        return self._model_config

    def _name(self):
        return self._model_config.get("name", "")

    def set_max_batch_size(self, max_batch_size):
        current = int(self._model_config.get("max_batch_size", 0) or 0)
        if current > max_batch_size:
            raise ValueError(
                f"model '{self._name()}': auto_complete_config sets max_batch_size {max_batch_size}, but the "
                f"configuration already has the larger max_batch_size {current}")
        self._model_config["max_batch_size"] = int(max_batch_size)

    def set_dynamic_batching(self):
        for other in ("sequence_batching", "ensemble_scheduling"):
            if other in self._model_config:
                raise ValueError(
                    f"model '{self._name()}': auto_complete_config asks for dynamic_batching, but the configuration "
                    f"already schedules with '{other}'")
        self._model_config.setdefault("dynamic_batching", {})

    def add_input(self, input):
        self._add_tensor("input", input, _INPUT_KEYS)

    def add_output(self, output):
        self._add_tensor("output", output, _OUTPUT_KEYS)

    def _add_tensor(self, kind, tensor, allowed):
        label = tensor.get("name", "?") if isinstance(tensor, dict) else "?"
        where = f"{kind} '{label}' in auto_complete_config of model '{self._name()}'"
        if not isinstance(tensor, dict):
            raise ValueError(f"{kind} in auto_complete_config of model '{self._name()}' must be a dict")
        extra = [k for k in tensor if k not in allowed]
        if extra:
            raise ValueError(f"{where} has properties other than {', '.join(allowed)}: {', '.join(map(str, extra))}")
        for key in ("name", "data_type", "dims"):
            if key not in tensor:
                raise ValueError(f"{where} lacks the '{key}' property")
        for existing in self._model_config[kind]:
            if existing.get("name") != tensor["name"]:
                continue
            known_type = existing.get("data_type", "TYPE_INVALID")
            if known_type != "TYPE_INVALID" and known_type != tensor["data_type"]:
                raise ValueError(
                    f"model '{self._name()}': the configuration gives {kind} '{label}' data_type {known_type}, "
                    f"auto_complete_config gives {tensor['data_type']}")
            if existing.get("dims") and list(existing["dims"]) != list(tensor["dims"]):
                raise ValueError(
                    f"model '{self._name()}': the configuration gives {kind} '{label}' dims {list(existing['dims'])}, "
                    f"auto_complete_config gives {list(tensor['dims'])}")
            if "optional" in existing and "optional" in tensor and existing["optional"] != tensor["optional"]:
                raise ValueError(
                    f"model '{self._name()}': the configuration gives {kind} '{label}' optional "
                    f"{existing['optional']}, auto_complete_config gives {tensor['optional']}")
            existing.update(tensor)
            return
        self._model_config[kind].append(dict(tensor))

    def set_model_transaction_policy(self, transaction_policy_dict):
        extra = [k for k in transaction_policy_dict if k != "decoupled"]
        if extra:
            raise ValueError(
                f"model '{self._name()}': model_transaction_policy in auto_complete_config only takes 'decoupled', "
                f"not {', '.join(map(str, extra))}")
        policy = self._model_config.setdefault("model_transaction_policy", {})
        if "decoupled" in transaction_policy_dict:
            wanted = bool(transaction_policy_dict["decoupled"])
            if "decoupled" in policy and bool(policy["decoupled"]) != wanted:
                raise ValueError(
                    f"model '{self._name()}': auto_complete_config cannot change decoupled, which the configuration "
                    f"sets to {policy['decoupled']}")
            policy["decoupled"] = wanted


def _find(model_config, key, name):
    for entry in model_config.get(key, []) if isinstance(model_config, dict) else []:
        if entry.get("name") == name:
            return entry
    return None


def get_input_config_by_name(model_config, name):
    """The config entry of input `name`, or None."""
    return _find(model_config, "input", name)


def get_output_config_by_name(model_config, name):
    """The config entry of output `name`, or None."""
    return _find(model_config, "output", name)


def using_decoupled_model_transaction_policy(model_config):
    """Whether the config makes the model decoupled."""
    return bool((model_config.get("model_transaction_policy") or {}).get("decoupled", False))
