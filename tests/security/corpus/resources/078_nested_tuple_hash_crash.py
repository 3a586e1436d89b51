# expect: stopped
# class: resources
# why: hashing a tuple nested 200,000 deep overflows the C stack of the sandbox child (SIGSEGV): a crash named as one
x = ()
for i in range(50000):
    x = ((((x,),),),)
result = len({x})
