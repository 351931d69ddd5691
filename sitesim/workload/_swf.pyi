# Types of the compiled SWF line (_swf.pyx); its Python twin is
# sitesim.workload.swf_ints.plain_record.
from sitesim.workload.swf_record import SwfRecord

def plain_record(line: str) -> SwfRecord | None: ...
