# Sourced by the kernel generators: every low-precision type the GPU suite
# covers, as name:mlir-type:bits (u1-u8, i2-i8, the 12 float formats of
# issue 5 and e6m1), in $LOW_PRECISION_TYPES.
LOW_PRECISION_TYPES="u1:ui1:1 u2:ui2:2 u3:ui3:3 u4:ui4:4 u5:ui5:5 u6:ui6:6 u7:ui7:7 u8:ui8:8"
LOW_PRECISION_TYPES="$LOW_PRECISION_TYPES i2:si2:2 i3:si3:3 i4:si4:4 i5:si5:5 i6:si6:6 i7:si7:7 i8:si8:8"
for f in 4,3 5,2 3,4 3,3 2,4 3,2 2,3 2,2 1,3 2,1 1,2 1,1 6,1; do
  LOW_PRECISION_TYPES="$LOW_PRECISION_TYPES e${f%,*}m${f#*,}:!tilus.float<${f%,*},${f#*,}>:$((1 + ${f%,*} + ${f#*,}))"
done
