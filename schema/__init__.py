"""Pydantic models of a troubleshooting guide; the JSON Schema is generated from them."""
from schema.models import (  # noqa: F401
    AppliesTo, Cause, Check, ComponentRange, Condition, Context, EnvFact, Evidence, Fix, Guide, Hardware,
    L10n, RawError, Reference, Reproduction, Signature, Step, Verification, When,
)
