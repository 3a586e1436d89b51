# expect: reject
# class: unicode_escapes
# why: a coding cookie for a codec that rewrites the source is refused
# -*- coding: utf-7 -*-
result = 1 +ACM- +AF8AXw-class+AF8AXw-
import os
