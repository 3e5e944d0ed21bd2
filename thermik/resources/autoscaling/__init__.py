"""Autoscaling: ``OS::Heat::AutoScalingGroup`` and ``OS::Heat::ScalingPolicy``.

The capacity and cooldown decisions are pure functions (:mod:`.capacity`); the group is a
batched nested-stack group (:mod:`.group`); a policy signals its group (:mod:`.policy`).
"""
