"""Behaviour probing: the probe source a runner job compiles (a reference and a candidate method
side by side behind a wrapper the runner's ``BehaviourProbe`` class drives) and the observations its signed
report gives back. Pure functions over text; may import nl2fix.core and nl2fix.java_source."""
