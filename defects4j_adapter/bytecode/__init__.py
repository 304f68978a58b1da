"""The check on a compiled candidate, whatever its source looked like: a strict reader of Java
class files (``classfile``), the one list of references a candidate may not add over the buggy
version (``policy``), the shape a candidate's classes must keep (``structure``) and the check
itself (``check``). Pure Python; imports only ``nl2fix.core``."""
