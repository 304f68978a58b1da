"""nl2fix: natural-language issue + buggy Java method -> ranked, test-validated fixes.

One subpackage per stage of the flow (docs/architecture.md): ``core`` (the kernel), ``java_source``,
``store``, ``dataset``, ``prompting``, ``validation``, ``sampling``, ``report``, ``fix`` and
``cli``; ranking is the top-level package ``ranking``, compiling and testing Java is
``defects4j_adapter``. ``nl2fix.api`` is the public read API (a run's records and numbers).
This module holds only the version, so any stage may import it.
"""

__version__ = "0.1.0"
