# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twin of :func:`sitesim.workload.swf_ints.canonical_record`: the record of
an SWF job line of 18 canonical integer tokens, else None.

Why: reading is about a fifth of a replay, and most of it was turning tokens into
integers one Python call at a time. This scans the line's characters once, in C.

It answers exactly as the Python original, which stays the specification
(tests/workload/test_swf_twin.py holds the two together): it decides itself only lines
made of ASCII digits, minus signs and the six ASCII blanks, with no token longer than
18 digits; any other line (a comment, a decimal point, a tab of
another kind, a long number, non-ASCII text) gets the original's answer.
"""

from sitesim.workload.swf_ints import canonical_record as _original
from sitesim.workload.swf_record import SwfRecord

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)
    const char* PyUnicode_AsUTF8AndSize(object, Py_ssize_t*) except NULL

cdef enum:
    N_FIELDS = 18  # fields in an SWF job line
    MAX_DIGITS = 18  # the longest token decided here: 18 digits fit a signed 64-bit integer


cdef inline bint _blank(char c) noexcept:
    # What str.split() splits on, among ASCII: space, \t \n \v \f \r (and \x1c-\x1f,
    # which send the line to the original).
    return c == 32 or 9 <= c <= 13


def canonical_record(str line not None):
    """:func:`sitesim.workload.swf_ints.canonical_record`, compiled."""
    if not PyUnicode_IS_ASCII(line):
        return _original(line)
    cdef Py_ssize_t n = 0
    cdef const char* s = PyUnicode_AsUTF8AndSize(line, &n)
    cdef Py_ssize_t i = 0, start
    cdef int count = 0
    cdef long long value
    cdef long long values[N_FIELDS]
    cdef bint negative
    cdef char c
    while True:
        while i < n and _blank(s[i]):
            i += 1
        if i == n:
            break
        if count == N_FIELDS:
            c = s[i]
            if c == 45 or 48 <= c <= 57:
                return None  # a 19th token
            return _original(line)
        negative = s[i] == 45  # '-'
        if negative:
            i += 1
        start = i
        value = 0
        while i < n and 48 <= s[i] <= 57:
            value = value * 10 + (s[i] - 48)
            i += 1
        if i - start > MAX_DIGITS:
            return _original(line)
        if i < n and not _blank(s[i]):
            c = s[i]
            if c == 45 or 48 <= c <= 57:
                return None  # a minus sign inside a token: not an integer
            return _original(line)  # any other character: the original decides
        if i == start:
            return None  # a lone minus sign
        if s[start] == 48 and (i - start > 1 or negative):
            return None  # a leading zero, or -0: not canonical text
        values[count] = -value if negative else value
        count += 1
    if count != N_FIELDS:
        return None
    record = SwfRecord(
        values[0], values[1], values[2], values[3], values[4], values[5],
        values[6], values[7], values[8], values[9], values[10], values[11],
        values[12], values[13], values[14], values[15], values[16], values[17],
    )
    record.text = line
    return record
