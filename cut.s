s_add_i32 s76, s78, 32
s_cmp_lt_i32 s41, s40
v_add_co_u32 v32, vcc_lo, s26, v17
s_cselect_b32 s79, s76, s78
v_add_co_ci_u32_e64 v33, null, s27, v18, vcc_lo
v_or_b32_e32 v0, s79, v68
v_mov_b32_e32 v91, 0
v_mov_b32_e32 v92, 0
v_mov_b32_e32 v93, 0
v_mov_b32_e32 v94, 0
v_min_i32_e32 v38, s67, v0
v_add_co_u32 v88, vcc_lo, s28, v21
v_mov_b32_e32 v87, v90
v_add_co_ci_u32_e64 v89, null, s29, v22, vcc_lo
v_lshrrev_b32_e32 v0, 2, v38
v_and_b32_e32 v0, 0x3ffffffc, v0
global_load_dword v86, v0, s[24:25]
global_load_dwordx4 v[17:20], v[32:33], off offset:64
ds_read_b128 v[23:26], v85
ds_read_b128 v[27:30], v85 offset:256
ds_read_b128 v[34:37], v85 offset:512
ds_read_b128 v[95:98], v85 offset:768
ds_read_b128 v[99:102], v85 offset:16
ds_read_b128 v[103:106], v85 offset:272
ds_read_b128 v[107:110], v85 offset:528
ds_read_b128 v[111:114], v85 offset:784
ds_read_b128 v[115:118], v85 offset:1024
ds_read_b128 v[119:122], v85 offset:1280
ds_read_b128 v[123:126], v85 offset:1536
ds_read_b128 v[127:130], v85 offset:1792
s_waitcnt vmcnt(5) lgkmcnt(11)
v_dot2c_f32_f16 v91, v23, v13
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v27, v13
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v34, v13
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v95, v13
v_dot2c_f32_f16 v91, v24, v14
v_dot2c_f32_f16 v92, v28, v14
v_dot2c_f32_f16 v93, v35, v14
v_dot2c_f32_f16 v94, v96, v14
v_dot2c_f32_f16 v91, v25, v15
v_dot2c_f32_f16 v92, v29, v15
v_dot2c_f32_f16 v93, v36, v15
v_dot2c_f32_f16 v94, v97, v15
v_dot2c_f32_f16 v91, v26, v16
v_dot2c_f32_f16 v92, v30, v16
v_dot2c_f32_f16 v93, v37, v16
v_dot2c_f32_f16 v94, v98, v16
v_mov_b32_e32 v90, 0
v_mov_b32_e32 v95, 0
v_mov_b32_e32 v96, 0
v_mov_b32_e32 v97, 0
ds_read_b128 v[21:24], v85 offset:1040
ds_read_b128 v[25:28], v85 offset:1296
ds_read_b128 v[34:37], v85 offset:1552
ds_read_b128 v[131:134], v85 offset:1808
s_waitcnt lgkmcnt(7)
v_dot2c_f32_f16 v90, v115, v13
s_waitcnt lgkmcnt(6)
v_dot2c_f32_f16 v95, v119, v13
s_waitcnt lgkmcnt(5)
v_dot2c_f32_f16 v96, v123, v13
s_waitcnt lgkmcnt(4)
v_dot2c_f32_f16 v97, v127, v13
v_dot2c_f32_f16 v90, v116, v14
v_dot2c_f32_f16 v95, v120, v14
v_dot2c_f32_f16 v96, v124, v14
v_dot2c_f32_f16 v97, v128, v14
v_dot2c_f32_f16 v90, v117, v15
v_dot2c_f32_f16 v95, v121, v15
v_dot2c_f32_f16 v96, v125, v15
v_dot2c_f32_f16 v97, v129, v15
v_dot2c_f32_f16 v90, v118, v16
v_dot2c_f32_f16 v95, v122, v16
v_dot2c_f32_f16 v96, v126, v16
v_dot2c_f32_f16 v97, v130, v16
global_load_dwordx4 v[13:16], v[32:33], off offset:80
ds_read_b128 v[115:118], v85 offset:32
ds_read_b128 v[119:122], v85 offset:288
ds_read_b128 v[123:126], v85 offset:544
ds_read_b128 v[127:130], v85 offset:800
s_waitcnt vmcnt(5)
v_dot2c_f32_f16 v91, v99, v9
v_dot2c_f32_f16 v92, v103, v9
v_dot2c_f32_f16 v93, v107, v9
v_dot2c_f32_f16 v94, v111, v9
v_dot2c_f32_f16 v91, v100, v10
v_dot2c_f32_f16 v92, v104, v10
v_dot2c_f32_f16 v93, v108, v10
v_dot2c_f32_f16 v94, v112, v10
v_dot2c_f32_f16 v91, v101, v11
v_dot2c_f32_f16 v92, v105, v11
v_dot2c_f32_f16 v93, v109, v11
v_dot2c_f32_f16 v94, v113, v11
v_dot2c_f32_f16 v91, v102, v12
v_dot2c_f32_f16 v92, v106, v12
v_dot2c_f32_f16 v93, v110, v12
v_dot2c_f32_f16 v94, v114, v12
ds_read_b128 v[98:101], v85 offset:1056
ds_read_b128 v[102:105], v85 offset:1312
ds_read_b128 v[106:109], v85 offset:1568
ds_read_b128 v[110:113], v85 offset:1824
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v21, v9
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v25, v9
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v34, v9
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v131, v9
v_dot2c_f32_f16 v90, v22, v10
v_dot2c_f32_f16 v95, v26, v10
v_dot2c_f32_f16 v96, v35, v10
v_dot2c_f32_f16 v97, v132, v10
v_dot2c_f32_f16 v90, v23, v11
v_dot2c_f32_f16 v95, v27, v11
v_dot2c_f32_f16 v96, v36, v11
v_dot2c_f32_f16 v97, v133, v11
v_dot2c_f32_f16 v90, v24, v12
v_dot2c_f32_f16 v95, v28, v12
v_dot2c_f32_f16 v96, v37, v12
v_dot2c_f32_f16 v97, v134, v12
global_load_dwordx4 v[21:24], v[32:33], off offset:96
ds_read_b128 v[9:12], v85 offset:48
ds_read_b128 v[34:37], v85 offset:304
ds_read_b128 v[131:134], v85 offset:560
ds_read_b128 v[135:138], v85 offset:816
s_waitcnt vmcnt(5) lgkmcnt(11)
v_dot2c_f32_f16 v91, v115, v5
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v119, v5
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v123, v5
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v127, v5
v_dot2c_f32_f16 v91, v116, v6
v_dot2c_f32_f16 v92, v120, v6
v_dot2c_f32_f16 v93, v124, v6
v_dot2c_f32_f16 v94, v128, v6
v_dot2c_f32_f16 v91, v117, v7
v_dot2c_f32_f16 v92, v121, v7
v_dot2c_f32_f16 v93, v125, v7
v_dot2c_f32_f16 v94, v129, v7
v_dot2c_f32_f16 v91, v118, v8
v_dot2c_f32_f16 v92, v122, v8
v_dot2c_f32_f16 v93, v126, v8
v_dot2c_f32_f16 v94, v130, v8
ds_read_b128 v[114:117], v85 offset:1072
ds_read_b128 v[118:121], v85 offset:1328
ds_read_b128 v[122:125], v85 offset:1584
ds_read_b128 v[126:129], v85 offset:1840
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v98, v5
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v102, v5
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v106, v5
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v110, v5
v_dot2c_f32_f16 v90, v99, v6
v_dot2c_f32_f16 v95, v103, v6
v_dot2c_f32_f16 v96, v107, v6
v_dot2c_f32_f16 v97, v111, v6
v_dot2c_f32_f16 v90, v100, v7
v_dot2c_f32_f16 v95, v104, v7
v_dot2c_f32_f16 v96, v108, v7
v_dot2c_f32_f16 v97, v112, v7
v_dot2c_f32_f16 v90, v101, v8
v_dot2c_f32_f16 v95, v105, v8
v_dot2c_f32_f16 v96, v109, v8
v_dot2c_f32_f16 v97, v113, v8
global_load_dwordx4 v[25:28], v[32:33], off offset:112
ds_read_b128 v[5:8], v85 offset:64
ds_read_b128 v[98:101], v85 offset:320
ds_read_b128 v[102:105], v85 offset:576
ds_read_b128 v[106:109], v85 offset:832
s_waitcnt vmcnt(5) lgkmcnt(11)
v_dot2c_f32_f16 v91, v9, v1
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v34, v1
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v131, v1
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v135, v1
v_dot2c_f32_f16 v91, v10, v2
v_dot2c_f32_f16 v92, v35, v2
v_dot2c_f32_f16 v93, v132, v2
v_dot2c_f32_f16 v94, v136, v2
v_dot2c_f32_f16 v91, v11, v3
v_dot2c_f32_f16 v92, v36, v3
v_dot2c_f32_f16 v93, v133, v3
v_dot2c_f32_f16 v94, v137, v3
v_dot2c_f32_f16 v91, v12, v4
v_dot2c_f32_f16 v92, v37, v4
v_dot2c_f32_f16 v93, v134, v4
v_dot2c_f32_f16 v94, v138, v4
ds_read_b128 v[9:12], v85 offset:1088
ds_read_b128 v[34:37], v85 offset:1344
ds_read_b128 v[110:113], v85 offset:1600
ds_read_b128 v[130:133], v85 offset:1856
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v114, v1
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v118, v1
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v122, v1
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v126, v1
v_dot2c_f32_f16 v90, v115, v2
v_dot2c_f32_f16 v95, v119, v2
v_dot2c_f32_f16 v96, v123, v2
v_dot2c_f32_f16 v97, v127, v2
v_dot2c_f32_f16 v90, v116, v3
v_dot2c_f32_f16 v95, v120, v3
v_dot2c_f32_f16 v96, v124, v3
v_dot2c_f32_f16 v97, v128, v3
v_dot2c_f32_f16 v90, v117, v4
v_dot2c_f32_f16 v95, v121, v4
v_dot2c_f32_f16 v96, v125, v4
v_dot2c_f32_f16 v97, v129, v4
global_load_dwordx4 v[0:3], v[32:33], off offset:128
ds_read_b128 v[114:117], v85 offset:80
ds_read_b128 v[118:121], v85 offset:336
ds_read_b128 v[122:125], v85 offset:592
ds_read_b128 v[126:129], v85 offset:848
s_waitcnt vmcnt(4) lgkmcnt(11)
v_dot2c_f32_f16 v91, v5, v17
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v98, v17
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v102, v17
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v106, v17
v_dot2c_f32_f16 v91, v6, v18
v_dot2c_f32_f16 v92, v99, v18
v_dot2c_f32_f16 v93, v103, v18
v_dot2c_f32_f16 v94, v107, v18
v_dot2c_f32_f16 v91, v7, v19
v_dot2c_f32_f16 v92, v100, v19
v_dot2c_f32_f16 v93, v104, v19
v_dot2c_f32_f16 v94, v108, v19
v_dot2c_f32_f16 v91, v8, v20
v_dot2c_f32_f16 v92, v101, v20
v_dot2c_f32_f16 v93, v105, v20
v_dot2c_f32_f16 v94, v109, v20
s_waitcnt lgkmcnt(7)
v_dot2c_f32_f16 v90, v9, v17
ds_read_b128 v[98:101], v85 offset:1104
ds_read_b128 v[102:105], v85 offset:1360
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v95, v34, v17
s_waitcnt lgkmcnt(7)
v_dot2c_f32_f16 v96, v110, v17
s_waitcnt lgkmcnt(6)
v_dot2c_f32_f16 v97, v130, v17
v_dot2c_f32_f16 v90, v10, v18
v_dot2c_f32_f16 v95, v35, v18
v_dot2c_f32_f16 v96, v111, v18
v_dot2c_f32_f16 v97, v131, v18
v_dot2c_f32_f16 v90, v11, v19
ds_read_b128 v[8:11], v85 offset:1616
ds_read_b128 v[106:109], v85 offset:1872
v_dot2c_f32_f16 v95, v36, v19
v_dot2c_f32_f16 v96, v112, v19
v_dot2c_f32_f16 v97, v132, v19
v_dot2c_f32_f16 v90, v12, v20
v_dot2c_f32_f16 v95, v37, v20
v_dot2c_f32_f16 v96, v113, v20
v_dot2c_f32_f16 v97, v133, v20
global_load_dwordx4 v[4:7], v[32:33], off offset:144
ds_read_b128 v[17:20], v85 offset:96
ds_read_b128 v[34:37], v85 offset:352
ds_read_b128 v[110:113], v85 offset:608
ds_read_b128 v[130:133], v85 offset:864
s_waitcnt vmcnt(4) lgkmcnt(11)
v_dot2c_f32_f16 v91, v114, v13
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v118, v13
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v122, v13
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v126, v13
v_dot2c_f32_f16 v91, v115, v14
v_dot2c_f32_f16 v92, v119, v14
v_dot2c_f32_f16 v93, v123, v14
v_dot2c_f32_f16 v94, v127, v14
v_dot2c_f32_f16 v91, v116, v15
v_dot2c_f32_f16 v92, v120, v15
v_dot2c_f32_f16 v93, v124, v15
v_dot2c_f32_f16 v94, v128, v15
v_dot2c_f32_f16 v91, v117, v16
v_dot2c_f32_f16 v92, v121, v16
v_dot2c_f32_f16 v93, v125, v16
v_dot2c_f32_f16 v94, v129, v16
ds_read_b128 v[114:117], v85 offset:1120
ds_read_b128 v[118:121], v85 offset:1376
ds_read_b128 v[122:125], v85 offset:1632
ds_read_b128 v[126:129], v85 offset:1888
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v98, v13
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v102, v13
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v8, v13
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v106, v13
v_dot2c_f32_f16 v90, v99, v14
v_dot2c_f32_f16 v95, v103, v14
v_dot2c_f32_f16 v96, v9, v14
v_dot2c_f32_f16 v97, v107, v14
v_dot2c_f32_f16 v90, v100, v15
v_dot2c_f32_f16 v95, v104, v15
v_dot2c_f32_f16 v96, v10, v15
v_dot2c_f32_f16 v97, v108, v15
v_dot2c_f32_f16 v90, v101, v16
v_dot2c_f32_f16 v95, v105, v16
v_dot2c_f32_f16 v96, v11, v16
v_dot2c_f32_f16 v97, v109, v16
global_load_dwordx4 v[8:11], v[32:33], off offset:160
ds_read_b128 v[98:101], v85 offset:112
ds_read_b128 v[102:105], v85 offset:368
ds_read_b128 v[106:109], v85 offset:624
ds_read_b128 v[134:137], v85 offset:880
s_waitcnt vmcnt(4) lgkmcnt(11)
v_dot2c_f32_f16 v91, v17, v21
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v34, v21
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v110, v21
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v130, v21
v_dot2c_f32_f16 v91, v18, v22
v_dot2c_f32_f16 v92, v35, v22
v_dot2c_f32_f16 v93, v111, v22
v_dot2c_f32_f16 v94, v131, v22
v_dot2c_f32_f16 v91, v19, v23
v_dot2c_f32_f16 v92, v36, v23
v_dot2c_f32_f16 v93, v112, v23
v_dot2c_f32_f16 v94, v132, v23
v_dot2c_f32_f16 v91, v20, v24
v_dot2c_f32_f16 v92, v37, v24
v_dot2c_f32_f16 v93, v113, v24
v_dot2c_f32_f16 v94, v133, v24
ds_read_b128 v[16:19], v85 offset:1136
ds_read_b128 v[34:37], v85 offset:1392
ds_read_b128 v[110:113], v85 offset:1648
ds_read_b128 v[130:133], v85 offset:1904
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v114, v21
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v118, v21
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v122, v21
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v126, v21
v_dot2c_f32_f16 v90, v115, v22
v_dot2c_f32_f16 v95, v119, v22
v_dot2c_f32_f16 v96, v123, v22
v_dot2c_f32_f16 v97, v127, v22
v_dot2c_f32_f16 v90, v116, v23
v_dot2c_f32_f16 v95, v120, v23
v_dot2c_f32_f16 v96, v124, v23
v_dot2c_f32_f16 v97, v128, v23
v_dot2c_f32_f16 v90, v117, v24
v_dot2c_f32_f16 v95, v121, v24
v_dot2c_f32_f16 v96, v125, v24
v_dot2c_f32_f16 v97, v129, v24
global_load_dwordx4 v[12:15], v[32:33], off offset:176
ds_read_b128 v[20:23], v85 offset:128
ds_read_b128 v[114:117], v85 offset:384
ds_read_b128 v[118:121], v85 offset:640
ds_read_b128 v[122:125], v85 offset:896
s_waitcnt vmcnt(4) lgkmcnt(11)
v_dot2c_f32_f16 v91, v98, v25
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v102, v25
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v106, v25
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v134, v25
v_dot2c_f32_f16 v91, v99, v26
v_dot2c_f32_f16 v92, v103, v26
v_dot2c_f32_f16 v93, v107, v26
v_dot2c_f32_f16 v94, v135, v26
v_dot2c_f32_f16 v91, v100, v27
v_dot2c_f32_f16 v92, v104, v27
v_dot2c_f32_f16 v93, v108, v27
v_dot2c_f32_f16 v94, v136, v27
v_dot2c_f32_f16 v91, v101, v28
v_dot2c_f32_f16 v92, v105, v28
v_dot2c_f32_f16 v93, v109, v28
v_dot2c_f32_f16 v94, v137, v28
ds_read_b128 v[98:101], v85 offset:1152
ds_read_b128 v[102:105], v85 offset:1408
ds_read_b128 v[106:109], v85 offset:1664
ds_read_b128 v[126:129], v85 offset:1920
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v16, v25
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v34, v25
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v110, v25
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v130, v25
v_dot2c_f32_f16 v90, v17, v26
v_dot2c_f32_f16 v95, v35, v26
v_dot2c_f32_f16 v96, v111, v26
v_dot2c_f32_f16 v97, v131, v26
v_dot2c_f32_f16 v90, v18, v27
v_dot2c_f32_f16 v95, v36, v27
v_dot2c_f32_f16 v96, v112, v27
v_dot2c_f32_f16 v97, v132, v27
v_dot2c_f32_f16 v90, v19, v28
v_dot2c_f32_f16 v95, v37, v28
v_dot2c_f32_f16 v96, v113, v28
v_dot2c_f32_f16 v97, v133, v28
global_load_dwordx4 v[16:19], v[32:33], off offset:192
ds_read_b128 v[110:113], v85 offset:144
ds_read_b128 v[130:133], v85 offset:400
ds_read_b128 v[134:137], v85 offset:656
ds_read_b128 v[138:141], v85 offset:912
s_waitcnt vmcnt(4) lgkmcnt(11)
v_dot2c_f32_f16 v91, v20, v0
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v114, v0
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v118, v0
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v122, v0
v_dot2c_f32_f16 v91, v21, v1
v_dot2c_f32_f16 v92, v115, v1
v_dot2c_f32_f16 v93, v119, v1
v_dot2c_f32_f16 v94, v123, v1
v_dot2c_f32_f16 v91, v22, v2
v_dot2c_f32_f16 v92, v116, v2
v_dot2c_f32_f16 v93, v120, v2
v_dot2c_f32_f16 v94, v124, v2
v_dot2c_f32_f16 v91, v23, v3
v_dot2c_f32_f16 v92, v117, v3
v_dot2c_f32_f16 v93, v121, v3
v_dot2c_f32_f16 v94, v125, v3
v_readlane_b32 s79, v88, 0
v_readlane_b32 s80, v89, 0
v_readlane_b32 s82, v88, 2
v_readlane_b32 s81, v89, 2
s_waitcnt lgkmcnt(7)
v_dot2c_f32_f16 v90, v98, v0
v_add_co_u32 v20, s79, s79, v80
v_add_co_ci_u32_e64 v21, null, s80, 0, s79
v_readlane_b32 s79, v88, 1
v_readlane_b32 s80, v89, 1
s_waitcnt lgkmcnt(6)
v_dot2c_f32_f16 v95, v102, v0
global_load_dwordx2 v[34:35], v[20:21], off
s_waitcnt lgkmcnt(5)
v_dot2c_f32_f16 v96, v106, v0
v_add_co_u32 v22, s79, s79, v80
v_add_co_ci_u32_e64 v23, null, s80, 0, s79
v_add_co_u32 v24, s79, s82, v80
v_add_co_ci_u32_e64 v25, null, s81, 0, s79
v_readlane_b32 s79, v88, 3
v_readlane_b32 s80, v89, 3
v_readlane_b32 s82, v88, 5
v_readlane_b32 s81, v89, 5
global_load_dwordx2 v[36:37], v[22:23], off
v_add_co_u32 v20, s79, s79, v80
v_add_co_ci_u32_e64 v21, null, s80, 0, s79
v_readlane_b32 s79, v88, 4
v_readlane_b32 s80, v89, 4
global_load_dwordx2 v[28:29], v[24:25], off
s_waitcnt lgkmcnt(4)
v_dot2c_f32_f16 v97, v126, v0
v_dot2c_f32_f16 v90, v99, v1
v_add_co_u32 v22, s79, s79, v80
v_add_co_ci_u32_e64 v23, null, s80, 0, s79
v_add_co_u32 v26, s79, s82, v80
v_add_co_ci_u32_e64 v27, null, s81, 0, s79
v_readlane_b32 s79, v88, 6
v_readlane_b32 s80, v89, 6
v_readlane_b32 s82, v88, 7
v_readlane_b32 s81, v89, 7
v_dot2c_f32_f16 v95, v103, v1
v_add_co_u32 v114, s79, s79, v80
v_add_co_ci_u32_e64 v115, null, s80, 0, s79
v_add_co_u32 v116, s79, s82, v80
v_add_co_ci_u32_e64 v117, null, s81, 0, s79
global_load_dwordx2 v[30:31], v[20:21], off
global_load_dwordx2 v[24:25], v[22:23], off
global_load_dwordx2 v[26:27], v[26:27], off
global_load_dwordx2 v[20:21], v[114:115], off
global_load_dwordx2 v[22:23], v[116:117], off
ds_read_b128 v[114:117], v85 offset:1168
ds_read_b128 v[118:121], v85 offset:1424
ds_read_b128 v[122:125], v85 offset:1680
ds_read_b128 v[142:145], v85 offset:1936
v_dot2c_f32_f16 v96, v107, v1
v_dot2c_f32_f16 v97, v127, v1
v_dot2c_f32_f16 v90, v100, v2
v_dot2c_f32_f16 v95, v104, v2
v_dot2c_f32_f16 v96, v108, v2
v_dot2c_f32_f16 v97, v128, v2
v_dot2c_f32_f16 v90, v101, v3
v_dot2c_f32_f16 v95, v105, v3
v_dot2c_f32_f16 v96, v109, v3
v_dot2c_f32_f16 v97, v129, v3
global_load_dwordx4 v[0:3], v[32:33], off offset:208
ds_read_b128 v[98:101], v85 offset:160
ds_read_b128 v[102:105], v85 offset:416
ds_read_b128 v[106:109], v85 offset:672
ds_read_b128 v[126:129], v85 offset:928
s_waitcnt vmcnt(12) lgkmcnt(11)
v_dot2c_f32_f16 v91, v110, v4
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v130, v4
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v134, v4
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v138, v4
v_dot2c_f32_f16 v91, v111, v5
v_dot2c_f32_f16 v92, v131, v5
v_dot2c_f32_f16 v93, v135, v5
v_dot2c_f32_f16 v94, v139, v5
v_dot2c_f32_f16 v91, v112, v6
v_dot2c_f32_f16 v92, v132, v6
v_dot2c_f32_f16 v93, v136, v6
v_dot2c_f32_f16 v94, v140, v6
v_dot2c_f32_f16 v91, v113, v7
v_dot2c_f32_f16 v92, v133, v7
v_dot2c_f32_f16 v93, v137, v7
v_dot2c_f32_f16 v94, v141, v7
ds_read_b128 v[110:113], v85 offset:1184
ds_read_b128 v[130:133], v85 offset:1440
ds_read_b128 v[134:137], v85 offset:1696
ds_read_b128 v[138:141], v85 offset:1952
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v114, v4
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v118, v4
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v122, v4
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v142, v4
v_dot2c_f32_f16 v90, v115, v5
v_dot2c_f32_f16 v95, v119, v5
v_dot2c_f32_f16 v96, v123, v5
v_dot2c_f32_f16 v97, v143, v5
v_dot2c_f32_f16 v90, v116, v6
v_dot2c_f32_f16 v95, v120, v6
v_dot2c_f32_f16 v96, v124, v6
v_dot2c_f32_f16 v97, v144, v6
v_dot2c_f32_f16 v90, v117, v7
v_dot2c_f32_f16 v95, v121, v7
v_dot2c_f32_f16 v96, v125, v7
v_dot2c_f32_f16 v97, v145, v7
global_load_dwordx4 v[4:7], v[32:33], off offset:224
ds_read_b128 v[114:117], v85 offset:176
ds_read_b128 v[118:121], v85 offset:432
ds_read_b128 v[122:125], v85 offset:688
ds_read_b128 v[142:145], v85 offset:944
s_waitcnt vmcnt(12) lgkmcnt(11)
v_dot2c_f32_f16 v91, v98, v8
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v102, v8
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v106, v8
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v126, v8
v_dot2c_f32_f16 v91, v99, v9
v_dot2c_f32_f16 v92, v103, v9
v_dot2c_f32_f16 v93, v107, v9
v_dot2c_f32_f16 v94, v127, v9
v_dot2c_f32_f16 v91, v100, v10
v_dot2c_f32_f16 v92, v104, v10
v_dot2c_f32_f16 v93, v108, v10
v_dot2c_f32_f16 v94, v128, v10
v_dot2c_f32_f16 v91, v101, v11
v_dot2c_f32_f16 v92, v105, v11
v_dot2c_f32_f16 v93, v109, v11
v_dot2c_f32_f16 v94, v129, v11
ds_read_b128 v[98:101], v85 offset:1200
ds_read_b128 v[102:105], v85 offset:1456
ds_read_b128 v[106:109], v85 offset:1712
ds_read_b128 v[126:129], v85 offset:1968
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v110, v8
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v130, v8
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v134, v8
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v138, v8
v_dot2c_f32_f16 v90, v111, v9
v_dot2c_f32_f16 v95, v131, v9
v_dot2c_f32_f16 v96, v135, v9
v_dot2c_f32_f16 v97, v139, v9
v_dot2c_f32_f16 v90, v112, v10
v_dot2c_f32_f16 v95, v132, v10
v_dot2c_f32_f16 v96, v136, v10
v_dot2c_f32_f16 v97, v140, v10
v_dot2c_f32_f16 v90, v113, v11
v_dot2c_f32_f16 v95, v133, v11
v_dot2c_f32_f16 v96, v137, v11
v_dot2c_f32_f16 v97, v141, v11
global_load_dwordx4 v[8:11], v[32:33], off offset:240
ds_read_b128 v[110:113], v85 offset:192
ds_read_b128 v[130:133], v85 offset:448
ds_read_b128 v[134:137], v85 offset:704
ds_read_b128 v[138:141], v85 offset:960
s_waitcnt vmcnt(12) lgkmcnt(11)
v_dot2c_f32_f16 v91, v114, v12
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v118, v12
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v122, v12
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v142, v12
v_dot2c_f32_f16 v91, v115, v13
v_dot2c_f32_f16 v92, v119, v13
v_dot2c_f32_f16 v93, v123, v13
v_dot2c_f32_f16 v94, v143, v13
v_dot2c_f32_f16 v91, v116, v14
v_dot2c_f32_f16 v92, v120, v14
v_dot2c_f32_f16 v93, v124, v14
v_dot2c_f32_f16 v94, v144, v14
v_dot2c_f32_f16 v91, v117, v15
v_dot2c_f32_f16 v92, v121, v15
v_dot2c_f32_f16 v93, v125, v15
v_dot2c_f32_f16 v94, v145, v15
ds_read_b128 v[114:117], v85 offset:1216
ds_read_b128 v[118:121], v85 offset:1472
ds_read_b128 v[122:125], v85 offset:1728
ds_read_b128 v[142:145], v85 offset:1984
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v98, v12
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v102, v12
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v106, v12
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v126, v12
v_dot2c_f32_f16 v90, v99, v13
v_dot2c_f32_f16 v95, v103, v13
v_dot2c_f32_f16 v96, v107, v13
v_dot2c_f32_f16 v97, v127, v13
v_dot2c_f32_f16 v90, v100, v14
v_dot2c_f32_f16 v95, v104, v14
v_dot2c_f32_f16 v96, v108, v14
v_dot2c_f32_f16 v97, v128, v14
v_dot2c_f32_f16 v90, v101, v15
v_dot2c_f32_f16 v95, v105, v15
v_dot2c_f32_f16 v96, v109, v15
v_dot2c_f32_f16 v97, v129, v15
ds_read_b128 v[12:15], v85 offset:208
ds_read_b128 v[98:101], v85 offset:464
ds_read_b128 v[102:105], v85 offset:720
ds_read_b128 v[106:109], v85 offset:976
s_waitcnt vmcnt(11) lgkmcnt(11)
v_dot2c_f32_f16 v91, v110, v16
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v130, v16
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v134, v16
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v138, v16
v_dot2c_f32_f16 v91, v111, v17
v_dot2c_f32_f16 v92, v131, v17
v_dot2c_f32_f16 v93, v135, v17
v_dot2c_f32_f16 v94, v139, v17
v_dot2c_f32_f16 v91, v112, v18
v_dot2c_f32_f16 v92, v132, v18
v_dot2c_f32_f16 v93, v136, v18
v_dot2c_f32_f16 v94, v140, v18
v_dot2c_f32_f16 v91, v113, v19
v_dot2c_f32_f16 v92, v133, v19
v_dot2c_f32_f16 v93, v137, v19
v_dot2c_f32_f16 v94, v141, v19
ds_read_b128 v[110:113], v85 offset:1232
ds_read_b128 v[126:129], v85 offset:1488
ds_read_b128 v[130:133], v85 offset:1744
ds_read_b128 v[134:137], v85 offset:2000
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v114, v16
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v118, v16
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v122, v16
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v142, v16
v_dot2c_f32_f16 v90, v115, v17
v_dot2c_f32_f16 v95, v119, v17
v_dot2c_f32_f16 v96, v123, v17
v_dot2c_f32_f16 v97, v143, v17
v_dot2c_f32_f16 v90, v116, v18
v_dot2c_f32_f16 v95, v120, v18
v_dot2c_f32_f16 v96, v124, v18
v_dot2c_f32_f16 v97, v144, v18
v_dot2c_f32_f16 v90, v117, v19
v_dot2c_f32_f16 v95, v121, v19
v_dot2c_f32_f16 v96, v125, v19
v_dot2c_f32_f16 v97, v145, v19
ds_read_b128 v[16:19], v85 offset:224
ds_read_b128 v[114:117], v85 offset:480
ds_read_b128 v[118:121], v85 offset:736
ds_read_b128 v[122:125], v85 offset:992
s_waitcnt vmcnt(2) lgkmcnt(11)
v_dot2c_f32_f16 v91, v12, v0
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v98, v0
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v102, v0
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v106, v0
v_dot2c_f32_f16 v91, v13, v1
v_dot2c_f32_f16 v92, v99, v1
v_dot2c_f32_f16 v93, v103, v1
v_dot2c_f32_f16 v94, v107, v1
v_dot2c_f32_f16 v91, v14, v2
v_dot2c_f32_f16 v92, v100, v2
v_dot2c_f32_f16 v93, v104, v2
v_dot2c_f32_f16 v94, v108, v2
v_dot2c_f32_f16 v91, v15, v3
v_dot2c_f32_f16 v92, v101, v3
v_dot2c_f32_f16 v93, v105, v3
v_dot2c_f32_f16 v94, v109, v3
ds_read_b128 v[12:15], v85 offset:1248
ds_read_b128 v[98:101], v85 offset:1504
ds_read_b128 v[102:105], v85 offset:1760
ds_read_b128 v[106:109], v85 offset:2016
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v110, v0
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v126, v0
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v130, v0
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v134, v0
v_dot2c_f32_f16 v90, v111, v1
v_dot2c_f32_f16 v95, v127, v1
v_dot2c_f32_f16 v96, v131, v1
v_dot2c_f32_f16 v97, v135, v1
v_dot2c_f32_f16 v90, v112, v2
v_dot2c_f32_f16 v95, v128, v2
v_dot2c_f32_f16 v96, v132, v2
v_dot2c_f32_f16 v97, v136, v2
v_dot2c_f32_f16 v90, v113, v3
v_dot2c_f32_f16 v95, v129, v3
v_dot2c_f32_f16 v96, v133, v3
v_dot2c_f32_f16 v97, v137, v3
ds_read_b128 v[0:3], v85 offset:240
ds_read_b128 v[110:113], v85 offset:496
ds_read_b128 v[126:129], v85 offset:752
ds_read_b128 v[130:133], v85 offset:1008
s_waitcnt vmcnt(1) lgkmcnt(11)
v_dot2c_f32_f16 v91, v16, v4
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v92, v114, v4
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v93, v118, v4
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v94, v122, v4
v_dot2c_f32_f16 v91, v17, v5
v_dot2c_f32_f16 v92, v115, v5
v_dot2c_f32_f16 v93, v119, v5
v_dot2c_f32_f16 v94, v123, v5
v_dot2c_f32_f16 v91, v18, v6
v_dot2c_f32_f16 v92, v116, v6
v_dot2c_f32_f16 v93, v120, v6
v_dot2c_f32_f16 v94, v124, v6
v_dot2c_f32_f16 v91, v19, v7
v_dot2c_f32_f16 v92, v117, v7
v_dot2c_f32_f16 v93, v121, v7
v_dot2c_f32_f16 v94, v125, v7
ds_read_b128 v[16:19], v85 offset:1264
ds_read_b128 v[114:117], v85 offset:1520
ds_read_b128 v[118:121], v85 offset:1776
ds_read_b128 v[122:125], v85 offset:2032
s_waitcnt lgkmcnt(11)
v_dot2c_f32_f16 v90, v12, v4
s_waitcnt lgkmcnt(10)
v_dot2c_f32_f16 v95, v98, v4
s_waitcnt lgkmcnt(9)
v_dot2c_f32_f16 v96, v102, v4
s_waitcnt lgkmcnt(8)
v_dot2c_f32_f16 v97, v106, v4
v_dot2c_f32_f16 v90, v13, v5
v_dot2c_f32_f16 v95, v99, v5
v_dot2c_f32_f16 v96, v103, v5
v_dot2c_f32_f16 v97, v107, v5
v_dot2c_f32_f16 v90, v14, v6
v_dot2c_f32_f16 v95, v100, v6
v_dot2c_f32_f16 v96, v104, v6
v_dot2c_f32_f16 v97, v108, v6
v_dot2c_f32_f16 v90, v15, v7
v_dot2c_f32_f16 v95, v101, v7
v_dot2c_f32_f16 v96, v105, v7
v_dot2c_f32_f16 v97, v109, v7
s_waitcnt vmcnt(0) lgkmcnt(7)
v_dot2c_f32_f16 v91, v0, v8
s_waitcnt lgkmcnt(6)
v_dot2c_f32_f16 v92, v110, v8
s_waitcnt lgkmcnt(5)
v_dot2c_f32_f16 v93, v126, v8
s_waitcnt lgkmcnt(4)
v_dot2c_f32_f16 v94, v130, v8
v_dot2c_f32_f16 v91, v1, v9
v_dot2c_f32_f16 v92, v111, v9
v_dot2c_f32_f16 v93, v127, v9
v_dot2c_f32_f16 v94, v131, v9
v_dot2c_f32_f16 v91, v2, v10
v_dot2c_f32_f16 v92, v112, v10
v_dot2c_f32_f16 v93, v128, v10
v_dot2c_f32_f16 v94, v132, v10
v_dot2c_f32_f16 v91, v3, v11
v_dot2c_f32_f16 v92, v113, v11
v_dot2c_f32_f16 v93, v129, v11
v_dot2c_f32_f16 v94, v133, v11
s_waitcnt lgkmcnt(3)
v_dot2c_f32_f16 v90, v16, v8
s_waitcnt lgkmcnt(2)
v_dot2c_f32_f16 v95, v114, v8
s_waitcnt lgkmcnt(1)
v_dot2c_f32_f16 v96, v118, v8
s_waitcnt lgkmcnt(0)
v_dot2c_f32_f16 v97, v122, v8
v_dot2c_f32_f16 v90, v17, v9
v_dot2c_f32_f16 v95, v115, v9
v_dot2c_f32_f16 v96, v119, v9
v_dot2c_f32_f16 v97, v123, v9
v_dot2c_f32_f16 v90, v18, v10
v_dot2c_f32_f16 v95, v116, v10
v_dot2c_f32_f16 v96, v120, v10
v_dot2c_f32_f16 v97, v124, v10
v_dot2c_f32_f16 v90, v19, v11
v_dot2c_f32_f16 v95, v117, v11
v_dot2c_f32_f16 v96, v121, v11
v_dot2c_f32_f16 v97, v125, v11
v_add_nc_u32_e32 v2, s78, v68
v_mul_f32_e32 v3, v79, v91
v_mul_f32_e32 v4, v79, v92
v_mul_f32_e32 v5, v79, v93
v_mul_f32_e32 v6, v79, v94
v_cmp_ge_i32_e32 vcc_lo, s66, v2
v_mul_f32_e32 v7, v79, v90
v_mul_f32_e32 v8, v79, v95
v_mul_f32_e32 v9, v79, v96
v_readlane_b32 s79, v88, 8
v_cndmask_b32_e32 v16, 0xff800000, v3, vcc_lo
v_cmp_ge_i32_e32 vcc_lo, s1, v2
v_readlane_b32 s78, v89, 8
v_readlane_b32 s81, v88, 9
v_readlane_b32 s80, v89, 9
v_and_b32_e32 v91, 15, v38
v_cndmask_b32_e32 v19, 0xff800000, v4, vcc_lo
v_cmp_ge_i32_e32 vcc_lo, s2, v2
v_ashrrev_i32_e32 v92, 31, v86
v_mul_lo_u32 v15, s13, v86
v_cndmask_b32_e32 v32, 0xff800000, v5, vcc_lo
v_cmp_ge_i32_e32 vcc_lo, s3, v2
v_mad_u64_u32 v[0:1], null, s12, v86, s[8:9]
v_mul_lo_u32 v17, s12, v92
v_mul_f32_e32 v10, v79, v97
v_cndmask_b32_e32 v6, 0xff800000, v6, vcc_lo
v_cmp_ge_i32_e32 vcc_lo, s44, v2
v_mov_b32_dpp v33, v16 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_perm_b32 v11, v36, v34, 0x5040100
v_perm_b32 v12, v36, v34, 0x7060302
v_perm_b32 v13, v37, v35, 0x5040100
v_cndmask_b32_e32 v7, 0xff800000, v7, vcc_lo
v_cmp_ge_i32_e32 vcc_lo, s45, v2
v_perm_b32 v14, v37, v35, 0x7060302
v_mov_b32_dpp v34, v19 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_mov_b32_dpp v35, v32 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_mov_b32_dpp v37, v7 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_cndmask_b32_e32 v8, 0xff800000, v8, vcc_lo
v_cmp_ge_i32_e32 vcc_lo, s68, v2
v_add3_u32 v1, v15, v1, v17
v_med3_f32 v15, v16, v33, 0x7f61b1e6
v_mov_b32_dpp v36, v6 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_mov_b32_dpp v38, v8 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_cndmask_b32_e32 v9, 0xff800000, v9, vcc_lo
v_cmp_ge_i32_e32 vcc_lo, s69, v2
v_add_co_u32 v2, s79, s79, v80
v_add_co_ci_u32_e64 v3, null, s78, 0, s79
v_add_co_u32 v4, s78, s81, v80
v_add_co_ci_u32_e64 v5, null, s80, 0, s78
global_load_dwordx2 v[2:3], v[2:3], off
global_load_dwordx2 v[4:5], v[4:5], off
v_cndmask_b32_e32 v10, 0xff800000, v10, vcc_lo
v_mov_b32_dpp v90, v9 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v17, v19, v34, 0x7f61b1e6
v_med3_f32 v33, v32, v35, 0x7f61b1e6
v_med3_f32 v35, v7, v37, 0x7f61b1e6
v_mov_b32_dpp v94, v10 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v37, v9, v90, 0x7f61b1e6
v_mov_b32_dpp v90, v15 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_ashrrev_i32_e32 v93, 31, v91
v_med3_f32 v34, v6, v36, 0x7f61b1e6
v_med3_f32 v36, v8, v38, 0x7f61b1e6
v_med3_f32 v38, v10, v94, 0x7f61b1e6
v_mov_b32_dpp v94, v17 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v15, v15, v90, 0x7f61b1e6
v_mul_lo_u32 v18, s15, v91
v_mul_lo_u32 v95, s14, v93
v_mad_u64_u32 v[0:1], null, s14, v91, v[0:1]
v_mov_b32_dpp v96, v33 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v90, v17, v94, 0x7f61b1e6
v_mov_b32_dpp v94, v15 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_mov_b32_dpp v97, v34 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_mov_b32_dpp v98, v35 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v33, v33, v96, 0x7f61b1e6
v_add3_u32 v1, v18, v1, v95
v_mov_b32_dpp v95, v90 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v15, v15, v94, 0x7f61b1e6
v_med3_f32 v34, v34, v97, 0x7f61b1e6
v_mov_b32_dpp v96, v33 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_mov_b32_dpp v99, v36 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v90, v90, v95, 0x7f61b1e6
v_mov_b32_dpp v94, v15 row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v35, v35, v98, 0x7f61b1e6
v_mov_b32_dpp v97, v34 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v33, v33, v96, 0x7f61b1e6
v_mov_b32_dpp v95, v90 row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v15, v15, v94, 0x7f61b1e6
v_mov_b32_dpp v100, v37 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v36, v36, v99, 0x7f61b1e6
v_mov_b32_dpp v98, v35 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v34, v34, v97, 0x7f61b1e6
v_mov_b32_dpp v96, v33 row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v90, v90, v95, 0x7f61b1e6
v_mov_b32_e32 v94, v15
v_mov_b32_dpp v101, v38 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v37, v37, v100, 0x7f61b1e6
v_mov_b32_dpp v99, v36 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v35, v35, v98, 0x7f61b1e6
v_mov_b32_dpp v97, v34 row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v33, v33, v96, 0x7f61b1e6
v_mov_b32_e32 v95, v90
v_permlanex16_b32 v94, v94, s16, 0xfedcba98
v_lshlrev_b64 v[17:18], 1, v[0:1]
v_med3_f32 v38, v38, v101, 0x7f61b1e6
v_mov_b32_dpp v100, v37 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v36, v36, v99, 0x7f61b1e6
v_mov_b32_dpp v98, v35 row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v34, v34, v97, 0x7f61b1e6
v_mov_b32_e32 v96, v33
v_permlanex16_b32 v95, v95, s16, 0xfedcba98
v_med3_f32 v15, v15, v94, 0x7f61b1e6
v_add_co_u32 v0, vcc_lo, s26, v17
v_mov_b32_dpp v101, v38 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v37, v37, v100, 0x7f61b1e6
v_add_co_ci_u32_e64 v1, null, s27, v18, vcc_lo
v_mov_b32_dpp v99, v36 row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v35, v35, v98, 0x7f61b1e6
v_mov_b32_e32 v97, v34
v_permlanex16_b32 v96, v96, s16, 0xfedcba98
v_med3_f32 v90, v90, v95, 0x7f61b1e6
v_cmp_gt_f32_e32 vcc_lo, s22, v15
v_med3_f32 v38, v38, v101, 0x7f61b1e6
v_mov_b32_dpp v100, v37 row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v36, v36, v99, 0x7f61b1e6
v_mov_b32_e32 v98, v35
v_permlanex16_b32 v97, v97, s16, 0xfedcba98
v_med3_f32 v33, v33, v96, 0x7f61b1e6
v_cndmask_b32_e64 v15, v15, s22, vcc_lo
v_cmp_gt_f32_e32 vcc_lo, s70, v90
v_mov_b32_dpp v101, v38 row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
v_med3_f32 v37, v37, v100, 0x7f61b1e6
v_mov_b32_e32 v99, v36
v_permlanex16_b32 v98, v98, s16, 0xfedcba98
v_med3_f32 v34, v34, v97, 0x7f61b1e6
v_cndmask_b32_e64 v90, v90, s70, vcc_lo
v_cmp_gt_f32_e32 vcc_lo, s71, v33
v_med3_f32 v38, v38, v101, 0x7f61b1e6
v_mov_b32_e32 v100, v37
v_permlanex16_b32 v99, v99, s16, 0xfedcba98
v_med3_f32 v35, v35, v98, 0x7f61b1e6
v_cndmask_b32_e64 v33, v33, s71, vcc_lo
v_cmp_gt_f32_e32 vcc_lo, s72, v34
v_mov_b32_e32 v101, v38
v_permlanex16_b32 v100, v100, s16, 0xfedcba98
v_med3_f32 v36, v36, v99, 0x7f61b1e6
v_cndmask_b32_e64 v34, v34, s72, vcc_lo
v_cmp_gt_f32_e32 vcc_lo, s73, v35
v_permlanex16_b32 v101, v101, s16, 0xfedcba98
v_med3_f32 v37, v37, v100, 0x7f61b1e6
v_cndmask_b32_e64 v35, v35, s73, vcc_lo
v_cmp_gt_f32_e32 vcc_lo, s74, v36
v_med3_f32 v38, v38, v101, 0x7f61b1e6
v_cndmask_b32_e64 v36, v36, s74, vcc_lo
v_cmp_gt_f32_e32 vcc_lo, s75, v37
v_cndmask_b32_e64 v37, v37, s75, vcc_lo
v_cmp_gt_f32_e32 vcc_lo, s77, v38
v_cndmask_b32_e64 v94, v38, s77, vcc_lo
v_cmp_neq_f32_e32 vcc_lo, 0xff800000, v15
v_cndmask_b32_e32 v38, 0, v15, vcc_lo
v_cmp_neq_f32_e32 vcc_lo, 0xff800000, v90
v_sub_f32_e32 v102, s22, v38
v_cndmask_b32_e32 v95, 0, v90, vcc_lo
v_cmp_neq_f32_e32 vcc_lo, 0xff800000, v33
v_sub_f32_e32 v16, v16, v38
v_readfirstlane_b32 s22, v15
v_sub_f32_e32 v15, s70, v95
v_cndmask_b32_e32 v96, 0, v33, vcc_lo
v_cmp_neq_f32_e32 vcc_lo, 0xff800000, v34
v_sub_f32_e32 v19, v19, v95
v_exp_f32_e32 v16, v16
v_exp_f32_e32 v15, v15
v_sub_f32_e32 v38, s71, v96
v_cndmask_b32_e32 v97, 0, v34, vcc_lo
v_cmp_neq_f32_e32 vcc_lo, 0xff800000, v35
v_sub_f32_e32 v32, v32, v96
v_readfirstlane_b32 s71, v33
v_exp_f32_e32 v96, v102
v_sub_f32_e32 v33, s72, v97
v_cndmask_b32_e32 v98, 0, v35, vcc_lo
v_cmp_neq_f32_e32 vcc_lo, 0xff800000, v36
v_sub_f32_e32 v6, v6, v97
v_readfirstlane_b32 s72, v34
v_exp_f32_e32 v19, v19
v_sub_f32_e32 v34, s73, v98
v_cndmask_b32_e32 v99, 0, v36, vcc_lo
v_cmp_neq_f32_e32 vcc_lo, 0xff800000, v37
v_sub_f32_e32 v7, v7, v98
v_readfirstlane_b32 s73, v35
v_exp_f32_e32 v38, v38
v_sub_f32_e32 v35, s74, v99
v_cndmask_b32_e32 v100, 0, v37, vcc_lo
v_cmp_neq_f32_e32 vcc_lo, 0xff800000, v94
v_sub_f32_e32 v8, v8, v99
v_readfirstlane_b32 s74, v36
v_exp_f32_e32 v32, v32
v_sub_f32_e32 v36, s75, v100
v_cndmask_b32_e32 v101, 0, v94, vcc_lo
v_sub_f32_e32 v9, v9, v100
v_exp_f32_e32 v33, v33
v_exp_f32_e32 v6, v6
v_exp_f32_e32 v34, v34
v_sub_f32_e32 v10, v10, v101
v_exp_f32_e32 v7, v7
v_readfirstlane_b32 s70, v90
v_exp_f32_e32 v35, v35
v_exp_f32_e32 v8, v8
v_exp_f32_e32 v36, v36
v_exp_f32_e32 v9, v9
v_exp_f32_e32 v90, v10
v_fma_f32 v78, v78, v96, v16
v_mul_f32_e32 v66, v66, v15
v_mul_f32_e32 v65, v65, v15
v_mul_f32_e32 v64, v64, v15
v_mul_f32_e32 v63, v63, v15
v_fma_f32 v77, v77, v15, v19
v_fma_f32 v76, v76, v38, v32
v_mul_f32_e32 v58, v58, v33
v_mul_f32_e32 v57, v57, v33
v_mul_f32_e32 v56, v56, v33
v_mul_f32_e32 v55, v55, v33
v_fma_f32 v75, v75, v33, v6
v_mul_f32_e32 v54, v54, v34
v_mul_f32_e32 v53, v53, v34
v_mul_f32_e32 v52, v52, v34
v_mul_f32_e32 v51, v51, v34
v_fma_f32 v74, v74, v34, v7
v_and_b32_e32 v10, v16, v82
v_and_b32_e32 v15, v83, v16
v_and_b32_e32 v16, v19, v82
v_and_b32_e32 v19, v83, v19
v_and_b32_e32 v33, v32, v82
v_and_b32_e32 v32, v83, v32
v_and_b32_e32 v34, v6, v82
v_and_b32_e32 v6, v83, v6
v_fma_f32 v73, v73, v35, v8
v_fma_f32 v72, v72, v36, v9
v_and_or_b32 v10, v83, v7, v10
v_and_or_b32 v7, v7, v82, v15
v_and_or_b32 v15, v83, v8, v16
v_and_or_b32 v8, v8, v82, v19
v_and_or_b32 v16, v83, v9, v33
v_and_or_b32 v9, v9, v82, v32
v_and_or_b32 v19, v83, v90, v34
v_and_or_b32 v6, v90, v82, v6
v_readfirstlane_b32 s75, v37
v_sub_f32_e32 v37, s77, v101
v_cvt_f16_f32_e32 v7, v7
v_cvt_f16_f32_dpp v10, v10 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_cvt_f16_f32_e32 v8, v8
v_cvt_f16_f32_dpp v15, v15 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_cvt_f16_f32_e32 v9, v9
v_cvt_f16_f32_dpp v16, v16 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_cvt_f16_f32_e32 v6, v6
v_cvt_f16_f32_dpp v19, v19 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
v_exp_f32_e32 v95, v37
v_and_b32_e32 v10, 0xffff, v10
v_lshlrev_b32_sdwa v7, v81, v7 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0
v_and_b32_e32 v15, 0xffff, v15
v_lshlrev_b32_sdwa v8, v81, v8 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0
v_and_b32_e32 v16, 0xffff, v16
v_lshlrev_b32_sdwa v9, v81, v9 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0
v_and_b32_e32 v19, 0xffff, v19
v_lshlrev_b32_sdwa v6, v81, v6 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0
v_mul_f32_e32 v71, v71, v96
v_mul_f32_e32 v70, v70, v96
v_mul_f32_e32 v69, v69, v96
v_mul_f32_e32 v67, v67, v96
v_lshl_or_b32 v96, v10, v84, v7
v_lshl_or_b32 v97, v15, v84, v8
v_lshl_or_b32 v98, v16, v84, v9
v_lshl_or_b32 v99, v19, v84, v6
v_mul_f32_e32 v62, v62, v38
v_mul_f32_e32 v61, v61, v38
v_mul_f32_e32 v60, v60, v38
v_mul_f32_e32 v59, v59, v38
v_mul_f32_e32 v50, v50, v35
v_mul_f32_e32 v49, v49, v35
v_mul_f32_e32 v48, v48, v35
v_mul_f32_e32 v47, v47, v35
v_mul_f32_e32 v46, v46, v36
v_mul_f32_e32 v45, v45, v36
v_mul_f32_e32 v44, v44, v36
v_mul_f32_e32 v43, v43, v36
v_mul_f32_e32 v42, v42, v95
v_mul_f32_e32 v41, v41, v95
v_mul_f32_e32 v40, v40, v95
v_mul_f32_e32 v39, v39, v95
v_readlane_b32 s78, v96, 0
v_readlane_b32 s80, v97, 0
v_readlane_b32 s82, v98, 0
v_readlane_b32 s83, v99, 0
v_readlane_b32 s84, v96, 1
v_readlane_b32 s85, v97, 1
v_readlane_b32 s86, v98, 1
v_readlane_b32 s87, v99, 1
v_readlane_b32 s77, v99, 3
v_dot2c_f32_f16 v71, s78, v11
v_dot2c_f32_f16 v70, s78, v12
v_dot2c_f32_f16 v69, s78, v13
v_dot2c_f32_f16 v67, s78, v14
v_dot2c_f32_f16 v66, s80, v11
v_dot2c_f32_f16 v65, s80, v12
v_dot2c_f32_f16 v64, s80, v13
v_dot2c_f32_f16 v63, s80, v14
v_dot2c_f32_f16 v62, s82, v11
v_dot2c_f32_f16 v61, s82, v12
v_dot2c_f32_f16 v60, s82, v13
v_dot2c_f32_f16 v59, s82, v14
v_dot2c_f32_f16 v58, s83, v11
v_dot2c_f32_f16 v57, s83, v12
v_dot2c_f32_f16 v56, s83, v13
v_dot2c_f32_f16 v55, s83, v14
v_dot2c_f32_f16 v54, s84, v11
v_dot2c_f32_f16 v53, s84, v12
v_dot2c_f32_f16 v52, s84, v13
v_dot2c_f32_f16 v51, s84, v14
v_dot2c_f32_f16 v50, s85, v11
v_dot2c_f32_f16 v49, s85, v12
v_dot2c_f32_f16 v48, s85, v13
v_dot2c_f32_f16 v47, s85, v14
v_dot2c_f32_f16 v46, s86, v11
v_dot2c_f32_f16 v45, s86, v12
v_dot2c_f32_f16 v44, s86, v13
v_dot2c_f32_f16 v43, s86, v14
v_dot2c_f32_f16 v42, s87, v11
v_dot2c_f32_f16 v41, s87, v12
v_dot2c_f32_f16 v40, s87, v13
v_dot2c_f32_f16 v39, s87, v14
v_readlane_b32 s88, v96, 2
v_readlane_b32 s89, v97, 2
v_readlane_b32 s90, v98, 2
v_readlane_b32 s91, v99, 2
v_readlane_b32 s92, v96, 3
v_readlane_b32 s81, v97, 3
v_readlane_b32 s79, v98, 3
v_readlane_b32 s78, v88, 10
v_readlane_b32 s80, v89, 10
v_readlane_b32 s83, v88, 11
v_readlane_b32 s82, v89, 11
v_perm_b32 v10, v31, v29, 0x5040100
v_add_co_u32 v6, s78, s78, v80
v_add_co_ci_u32_e64 v7, null, s80, 0, s78
v_add_co_u32 v8, s78, s83, v80
v_add_co_ci_u32_e64 v9, null, s82, 0, s78
global_load_dwordx2 v[6:7], v[6:7], off
global_load_dwordx2 v[12:13], v[8:9], off
v_perm_b32 v8, v30, v28, 0x5040100
v_perm_b32 v9, v30, v28, 0x7060302
v_perm_b32 v11, v31, v29, 0x7060302
v_readlane_b32 s78, v99, 5
v_dot2c_f32_f16 v69, s88, v10
v_dot2c_f32_f16 v71, s88, v8
v_dot2c_f32_f16 v70, s88, v9
v_dot2c_f32_f16 v67, s88, v11
v_dot2c_f32_f16 v66, s89, v8
v_dot2c_f32_f16 v65, s89, v9
v_dot2c_f32_f16 v64, s89, v10
v_dot2c_f32_f16 v63, s89, v11
v_dot2c_f32_f16 v62, s90, v8
v_dot2c_f32_f16 v61, s90, v9
v_dot2c_f32_f16 v60, s90, v10
v_dot2c_f32_f16 v59, s90, v11
v_dot2c_f32_f16 v58, s91, v8
v_dot2c_f32_f16 v57, s91, v9
v_dot2c_f32_f16 v56, s91, v10
v_dot2c_f32_f16 v55, s91, v11
v_dot2c_f32_f16 v54, s92, v8
v_dot2c_f32_f16 v53, s92, v9
v_dot2c_f32_f16 v52, s92, v10
v_dot2c_f32_f16 v51, s92, v11
v_dot2c_f32_f16 v50, s81, v8
v_dot2c_f32_f16 v49, s81, v9
v_dot2c_f32_f16 v48, s81, v10
v_dot2c_f32_f16 v47, s81, v11
v_dot2c_f32_f16 v46, s79, v8
v_dot2c_f32_f16 v45, s79, v9
v_dot2c_f32_f16 v44, s79, v10
v_dot2c_f32_f16 v43, s79, v11
v_dot2c_f32_f16 v42, s77, v8
v_dot2c_f32_f16 v41, s77, v9
v_dot2c_f32_f16 v40, s77, v10
v_dot2c_f32_f16 v39, s77, v11
v_readlane_b32 s83, v96, 4
v_readlane_b32 s84, v97, 4
v_readlane_b32 s85, v98, 4
v_readlane_b32 s86, v99, 4
v_readlane_b32 s87, v96, 5
v_readlane_b32 s82, v97, 5
v_readlane_b32 s80, v98, 5
v_readlane_b32 s77, v88, 12
v_readlane_b32 s79, v89, 12
v_readlane_b32 s88, v88, 13
v_readlane_b32 s81, v89, 13
v_perm_b32 v16, v27, v25, 0x5040100
v_add_co_u32 v8, s77, s77, v80
v_add_co_ci_u32_e64 v9, null, s79, 0, s77
v_add_co_u32 v10, s77, s88, v80
v_add_co_ci_u32_e64 v11, null, s81, 0, s77
global_load_dwordx2 v[8:9], v[8:9], off
global_load_dwordx2 v[14:15], v[10:11], off
v_perm_b32 v10, v26, v24, 0x5040100
v_perm_b32 v11, v26, v24, 0x7060302
v_perm_b32 v19, v27, v25, 0x7060302
v_readlane_b32 s77, v99, 7
v_dot2c_f32_f16 v69, s83, v16
v_dot2c_f32_f16 v71, s83, v10
v_dot2c_f32_f16 v70, s83, v11
v_dot2c_f32_f16 v67, s83, v19
v_dot2c_f32_f16 v66, s84, v10
v_dot2c_f32_f16 v65, s84, v11
v_dot2c_f32_f16 v64, s84, v16
v_dot2c_f32_f16 v63, s84, v19
v_dot2c_f32_f16 v62, s85, v10
v_dot2c_f32_f16 v61, s85, v11
v_dot2c_f32_f16 v60, s85, v16
v_dot2c_f32_f16 v59, s85, v19
v_dot2c_f32_f16 v58, s86, v10
v_dot2c_f32_f16 v57, s86, v11
v_dot2c_f32_f16 v56, s86, v16
v_dot2c_f32_f16 v55, s86, v19
v_dot2c_f32_f16 v54, s87, v10
v_dot2c_f32_f16 v53, s87, v11
v_dot2c_f32_f16 v52, s87, v16
v_dot2c_f32_f16 v51, s87, v19
v_dot2c_f32_f16 v50, s82, v10
v_dot2c_f32_f16 v49, s82, v11
v_dot2c_f32_f16 v48, s82, v16
v_dot2c_f32_f16 v47, s82, v19
v_dot2c_f32_f16 v46, s80, v10
v_dot2c_f32_f16 v45, s80, v11
v_dot2c_f32_f16 v44, s80, v16
v_dot2c_f32_f16 v43, s80, v19
v_dot2c_f32_f16 v42, s78, v10
v_dot2c_f32_f16 v41, s78, v11
v_dot2c_f32_f16 v40, s78, v16
v_dot2c_f32_f16 v39, s78, v19
v_readlane_b32 s88, v96, 6
v_readlane_b32 s89, v97, 6
v_readlane_b32 s90, v98, 6
v_readlane_b32 s91, v99, 6
v_readlane_b32 s92, v96, 7
v_readlane_b32 s81, v97, 7
v_readlane_b32 s79, v98, 7
v_readlane_b32 s78, v88, 14
v_readlane_b32 s80, v89, 14
v_readlane_b32 s83, v88, 15
v_readlane_b32 s82, v89, 15
v_perm_b32 v16, v22, v20, 0x5040100
v_add_co_u32 v10, s78, s78, v80
v_add_co_ci_u32_e64 v11, null, s80, 0, s78
v_add_co_u32 v24, s78, s83, v80
v_add_co_ci_u32_e64 v25, null, s82, 0, s78
global_load_dwordx2 v[10:11], v[10:11], off
global_load_dwordx2 v[35:36], v[24:25], off
v_perm_b32 v19, v22, v20, 0x7060302
v_perm_b32 v20, v23, v21, 0x5040100
v_perm_b32 v21, v23, v21, 0x7060302
v_readlane_b32 s78, v99, 9
v_dot2c_f32_f16 v71, s88, v16
v_dot2c_f32_f16 v70, s88, v19
v_dot2c_f32_f16 v69, s88, v20
v_dot2c_f32_f16 v67, s88, v21
v_dot2c_f32_f16 v66, s89, v16
v_dot2c_f32_f16 v65, s89, v19
v_dot2c_f32_f16 v64, s89, v20
v_dot2c_f32_f16 v63, s89, v21
v_dot2c_f32_f16 v62, s90, v16
v_dot2c_f32_f16 v61, s90, v19
v_dot2c_f32_f16 v60, s90, v20
v_dot2c_f32_f16 v59, s90, v21
v_dot2c_f32_f16 v58, s91, v16
v_dot2c_f32_f16 v57, s91, v19
v_dot2c_f32_f16 v56, s91, v20
v_dot2c_f32_f16 v55, s91, v21
v_dot2c_f32_f16 v54, s92, v16
v_dot2c_f32_f16 v53, s92, v19
v_dot2c_f32_f16 v52, s92, v20
v_dot2c_f32_f16 v51, s92, v21
v_dot2c_f32_f16 v50, s81, v16
v_dot2c_f32_f16 v49, s81, v19
v_dot2c_f32_f16 v48, s81, v20
v_dot2c_f32_f16 v47, s81, v21
v_dot2c_f32_f16 v46, s79, v16
v_dot2c_f32_f16 v45, s79, v19
v_dot2c_f32_f16 v44, s79, v20
v_dot2c_f32_f16 v43, s79, v21
v_dot2c_f32_f16 v42, s77, v16
v_dot2c_f32_f16 v41, s77, v19
v_dot2c_f32_f16 v40, s77, v20
v_dot2c_f32_f16 v39, s77, v21
v_readlane_b32 s83, v96, 8
v_readlane_b32 s84, v97, 8
v_readlane_b32 s85, v98, 8
v_readlane_b32 s86, v99, 8
v_readlane_b32 s87, v96, 9
v_readlane_b32 s82, v97, 9
v_readlane_b32 s80, v98, 9
v_readlane_b32 s77, v88, 16
v_readlane_b32 s79, v89, 16
v_readlane_b32 s88, v88, 17
v_readlane_b32 s81, v89, 17
s_waitcnt vmcnt(6)
v_perm_b32 v16, v4, v2, 0x5040100
v_add_co_u32 v19, s77, s77, v80
v_add_co_ci_u32_e64 v20, null, s79, 0, s77
v_add_co_u32 v21, s77, s88, v80
v_add_co_ci_u32_e64 v22, null, s81, 0, s77
global_load_dwordx2 v[31:32], v[19:20], off
global_load_dwordx2 v[33:34], v[21:22], off
v_perm_b32 v2, v4, v2, 0x7060302
v_perm_b32 v4, v5, v3, 0x5040100
v_perm_b32 v3, v5, v3, 0x7060302
v_readlane_b32 s77, v99, 11
v_dot2c_f32_f16 v71, s83, v16
v_dot2c_f32_f16 v70, s83, v2
v_dot2c_f32_f16 v69, s83, v4
v_dot2c_f32_f16 v67, s83, v3
v_dot2c_f32_f16 v66, s84, v16
v_dot2c_f32_f16 v65, s84, v2
v_dot2c_f32_f16 v64, s84, v4
v_dot2c_f32_f16 v63, s84, v3
v_dot2c_f32_f16 v62, s85, v16
v_dot2c_f32_f16 v61, s85, v2
v_dot2c_f32_f16 v60, s85, v4
v_dot2c_f32_f16 v59, s85, v3
v_dot2c_f32_f16 v58, s86, v16
v_dot2c_f32_f16 v57, s86, v2
v_dot2c_f32_f16 v56, s86, v4
v_dot2c_f32_f16 v55, s86, v3
v_dot2c_f32_f16 v54, s87, v16
v_dot2c_f32_f16 v53, s87, v2
v_dot2c_f32_f16 v52, s87, v4
v_dot2c_f32_f16 v51, s87, v3
v_dot2c_f32_f16 v50, s82, v16
v_dot2c_f32_f16 v49, s82, v2
v_dot2c_f32_f16 v48, s82, v4
v_dot2c_f32_f16 v47, s82, v3
v_dot2c_f32_f16 v46, s80, v16
v_dot2c_f32_f16 v45, s80, v2
v_dot2c_f32_f16 v44, s80, v4
v_dot2c_f32_f16 v43, s80, v3
v_dot2c_f32_f16 v42, s78, v16
v_dot2c_f32_f16 v41, s78, v2
v_dot2c_f32_f16 v40, s78, v4
v_dot2c_f32_f16 v39, s78, v3
v_readlane_b32 s88, v96, 10
v_readlane_b32 s89, v97, 10
v_readlane_b32 s90, v98, 10
v_readlane_b32 s91, v99, 10
v_readlane_b32 s92, v96, 11
v_readlane_b32 s81, v97, 11
v_readlane_b32 s79, v98, 11
v_readlane_b32 s78, v88, 18
v_readlane_b32 s80, v89, 18
v_readlane_b32 s83, v88, 19
v_readlane_b32 s82, v89, 19
v_readlane_b32 s84, v96, 12
v_add_co_u32 v2, s78, s78, v80
v_add_co_ci_u32_e64 v3, null, s80, 0, s78
v_add_co_u32 v4, s78, s83, v80
v_add_co_ci_u32_e64 v5, null, s82, 0, s78
global_load_dwordx2 v[19:20], v[2:3], off
global_load_dwordx2 v[25:26], v[4:5], off
s_waitcnt vmcnt(8)
v_perm_b32 v2, v12, v6, 0x5040100
v_perm_b32 v3, v12, v6, 0x7060302
v_perm_b32 v4, v13, v7, 0x5040100
v_perm_b32 v5, v13, v7, 0x7060302
v_readlane_b32 s78, v99, 13
v_dot2c_f32_f16 v71, s88, v2
v_dot2c_f32_f16 v70, s88, v3
v_dot2c_f32_f16 v69, s88, v4
v_dot2c_f32_f16 v67, s88, v5
v_dot2c_f32_f16 v66, s89, v2
v_dot2c_f32_f16 v65, s89, v3
v_dot2c_f32_f16 v64, s89, v4
v_dot2c_f32_f16 v63, s89, v5
v_dot2c_f32_f16 v62, s90, v2
v_dot2c_f32_f16 v61, s90, v3
v_dot2c_f32_f16 v60, s90, v4
v_dot2c_f32_f16 v59, s90, v5
v_dot2c_f32_f16 v58, s91, v2
v_dot2c_f32_f16 v57, s91, v3
v_dot2c_f32_f16 v56, s91, v4
v_dot2c_f32_f16 v55, s91, v5
v_dot2c_f32_f16 v54, s92, v2
v_dot2c_f32_f16 v53, s92, v3
v_dot2c_f32_f16 v52, s92, v4
v_dot2c_f32_f16 v51, s92, v5
v_dot2c_f32_f16 v50, s81, v2
v_dot2c_f32_f16 v49, s81, v3
v_dot2c_f32_f16 v48, s81, v4
v_dot2c_f32_f16 v47, s81, v5
v_dot2c_f32_f16 v46, s79, v2
v_dot2c_f32_f16 v45, s79, v3
v_dot2c_f32_f16 v44, s79, v4
v_dot2c_f32_f16 v43, s79, v5
v_dot2c_f32_f16 v42, s77, v2
v_dot2c_f32_f16 v41, s77, v3
v_dot2c_f32_f16 v40, s77, v4
v_dot2c_f32_f16 v39, s77, v5
v_readlane_b32 s86, v97, 12
v_readlane_b32 s87, v98, 12
v_readlane_b32 s93, v99, 12
v_readlane_b32 s94, v96, 13
v_readlane_b32 s82, v97, 13
v_readlane_b32 s80, v98, 13
v_readlane_b32 s77, v88, 20
v_readlane_b32 s79, v89, 20
v_readlane_b32 s83, v88, 21
v_readlane_b32 s81, v89, 21
v_readlane_b32 s88, v96, 14
v_add_co_u32 v2, s77, s77, v80
v_add_co_ci_u32_e64 v3, null, s79, 0, s77
v_add_co_u32 v4, s77, s83, v80
v_add_co_ci_u32_e64 v5, null, s81, 0, s77
global_load_dwordx2 v[21:22], v[2:3], off
global_load_dwordx2 v[27:28], v[4:5], off
s_waitcnt vmcnt(8)
v_perm_b32 v2, v14, v8, 0x5040100
v_perm_b32 v3, v14, v8, 0x7060302
v_perm_b32 v4, v15, v9, 0x5040100
v_perm_b32 v5, v15, v9, 0x7060302
v_readlane_b32 s89, v97, 14
v_dot2c_f32_f16 v71, s84, v2
v_dot2c_f32_f16 v70, s84, v3
v_dot2c_f32_f16 v69, s84, v4
v_dot2c_f32_f16 v67, s84, v5
v_dot2c_f32_f16 v66, s86, v2
v_dot2c_f32_f16 v65, s86, v3
v_dot2c_f32_f16 v64, s86, v4
v_dot2c_f32_f16 v63, s86, v5
v_dot2c_f32_f16 v62, s87, v2
v_dot2c_f32_f16 v61, s87, v3
v_dot2c_f32_f16 v60, s87, v4
v_dot2c_f32_f16 v59, s87, v5
v_dot2c_f32_f16 v58, s93, v2
v_dot2c_f32_f16 v57, s93, v3
v_dot2c_f32_f16 v56, s93, v4
v_dot2c_f32_f16 v55, s93, v5
v_dot2c_f32_f16 v54, s94, v2
v_dot2c_f32_f16 v53, s94, v3
v_dot2c_f32_f16 v52, s94, v4
v_dot2c_f32_f16 v51, s94, v5
v_dot2c_f32_f16 v50, s82, v2
v_dot2c_f32_f16 v49, s82, v3
v_dot2c_f32_f16 v48, s82, v4
v_dot2c_f32_f16 v47, s82, v5
v_dot2c_f32_f16 v46, s80, v2
v_dot2c_f32_f16 v45, s80, v3
v_dot2c_f32_f16 v44, s80, v4
v_dot2c_f32_f16 v43, s80, v5
v_dot2c_f32_f16 v42, s78, v2
v_dot2c_f32_f16 v41, s78, v3
v_dot2c_f32_f16 v40, s78, v4
v_dot2c_f32_f16 v39, s78, v5
v_readlane_b32 s90, v98, 14
v_readlane_b32 s91, v99, 14
v_readlane_b32 s92, v96, 15
v_readlane_b32 s85, v97, 15
v_readlane_b32 s83, v98, 15
v_readlane_b32 s81, v99, 15
v_readlane_b32 s77, v88, 22
v_readlane_b32 s78, v89, 22
v_readlane_b32 s80, v88, 23
v_readlane_b32 s79, v89, 23
v_readlane_b32 s87, v96, 16
v_add_co_u32 v2, s77, s77, v80
v_add_co_ci_u32_e64 v3, null, s78, 0, s77
v_add_co_u32 v4, s77, s80, v80
v_add_co_ci_u32_e64 v5, null, s79, 0, s77
global_load_dwordx2 v[23:24], v[2:3], off
global_load_dwordx2 v[29:30], v[4:5], off
s_waitcnt vmcnt(8)
v_perm_b32 v2, v35, v10, 0x5040100
v_perm_b32 v3, v35, v10, 0x7060302
v_perm_b32 v4, v36, v11, 0x5040100
v_perm_b32 v5, v36, v11, 0x7060302
v_readlane_b32 s78, v98, 17
v_readlane_b32 s77, v99, 17
v_dot2c_f32_f16 v71, s88, v2
v_dot2c_f32_f16 v70, s88, v3
v_dot2c_f32_f16 v69, s88, v4
v_dot2c_f32_f16 v67, s88, v5
v_dot2c_f32_f16 v66, s89, v2
v_dot2c_f32_f16 v65, s89, v3
v_dot2c_f32_f16 v64, s89, v4
v_dot2c_f32_f16 v63, s89, v5
v_dot2c_f32_f16 v62, s90, v2
v_dot2c_f32_f16 v61, s90, v3
v_dot2c_f32_f16 v60, s90, v4
v_dot2c_f32_f16 v59, s90, v5
v_dot2c_f32_f16 v58, s91, v2
v_dot2c_f32_f16 v57, s91, v3
v_dot2c_f32_f16 v56, s91, v4
v_dot2c_f32_f16 v55, s91, v5
v_dot2c_f32_f16 v54, s92, v2
v_dot2c_f32_f16 v53, s92, v3
v_dot2c_f32_f16 v52, s92, v4
v_dot2c_f32_f16 v51, s92, v5
v_dot2c_f32_f16 v50, s85, v2
v_dot2c_f32_f16 v49, s85, v3
v_dot2c_f32_f16 v48, s85, v4
v_dot2c_f32_f16 v47, s85, v5
v_dot2c_f32_f16 v46, s83, v2
v_dot2c_f32_f16 v45, s83, v3
v_dot2c_f32_f16 v44, s83, v4
v_dot2c_f32_f16 v43, s83, v5
v_dot2c_f32_f16 v42, s81, v2
v_dot2c_f32_f16 v41, s81, v3
v_dot2c_f32_f16 v40, s81, v4
v_dot2c_f32_f16 v39, s81, v5
v_readlane_b32 s86, v97, 16
v_readlane_b32 s84, v98, 16
v_readlane_b32 s82, v99, 16
v_readlane_b32 s80, v96, 17
v_readlane_b32 s79, v97, 17
v_readlane_b32 s81, v88, 24
v_readlane_b32 s83, v89, 24
v_readlane_b32 s88, v88, 25
v_readlane_b32 s85, v89, 25
v_readlane_b32 s89, v97, 18
v_add_co_u32 v2, s81, s81, v80
v_add_co_ci_u32_e64 v3, null, s83, 0, s81
v_add_co_u32 v4, s81, s88, v80
v_add_co_ci_u32_e64 v5, null, s85, 0, s81
global_load_dwordx2 v[35:36], v[2:3], off
global_load_dwordx2 v[37:38], v[4:5], off
s_clause 0x3
global_load_dwordx4 v[13:16], v[0:1], off
global_load_dwordx4 v[9:12], v[0:1], off offset:16
global_load_dwordx4 v[5:8], v[0:1], off offset:32
global_load_dwordx4 v[1:4], v[0:1], off offset:48
s_waitcnt vmcnt(12)
v_perm_b32 v0, v33, v31, 0x5040100
v_perm_b32 v31, v33, v31, 0x7060302
v_perm_b32 v33, v34, v32, 0x5040100
v_perm_b32 v32, v34, v32, 0x7060302
v_readlane_b32 s88, v96, 18
v_dot2c_f32_f16 v71, s87, v0
v_dot2c_f32_f16 v70, s87, v31
v_dot2c_f32_f16 v69, s87, v33
v_dot2c_f32_f16 v67, s87, v32
v_dot2c_f32_f16 v66, s86, v0
v_dot2c_f32_f16 v65, s86, v31
v_dot2c_f32_f16 v64, s86, v33
v_dot2c_f32_f16 v63, s86, v32
v_dot2c_f32_f16 v62, s84, v0
v_dot2c_f32_f16 v61, s84, v31
v_dot2c_f32_f16 v60, s84, v33
v_dot2c_f32_f16 v59, s84, v32
v_dot2c_f32_f16 v58, s82, v0
v_dot2c_f32_f16 v57, s82, v31
v_dot2c_f32_f16 v56, s82, v33
v_dot2c_f32_f16 v55, s82, v32
v_dot2c_f32_f16 v54, s80, v0
v_dot2c_f32_f16 v53, s80, v31
v_dot2c_f32_f16 v52, s80, v33
v_dot2c_f32_f16 v51, s80, v32
v_dot2c_f32_f16 v50, s79, v0
v_dot2c_f32_f16 v49, s79, v31
v_dot2c_f32_f16 v48, s79, v33
v_dot2c_f32_f16 v47, s79, v32
v_dot2c_f32_f16 v46, s78, v0
v_dot2c_f32_f16 v45, s78, v31
v_dot2c_f32_f16 v44, s78, v33
v_dot2c_f32_f16 v43, s78, v32
v_dot2c_f32_f16 v42, s77, v0
v_dot2c_f32_f16 v41, s77, v31
v_dot2c_f32_f16 v40, s77, v33
v_dot2c_f32_f16 v39, s77, v32
v_readlane_b32 s90, v98, 18
v_readlane_b32 s91, v99, 18
v_readlane_b32 s92, v96, 19
v_readlane_b32 s85, v97, 19
v_readlane_b32 s83, v98, 19
v_readlane_b32 s81, v99, 19
v_readlane_b32 s77, v88, 26
v_readlane_b32 s78, v89, 26
v_readlane_b32 s80, v88, 27
v_readlane_b32 s79, v89, 27
s_waitcnt vmcnt(10)
v_perm_b32 v0, v25, v19, 0x5040100
v_add_co_u32 v31, s77, s77, v80
v_add_co_ci_u32_e64 v32, null, s78, 0, s77
v_add_co_u32 v33, s77, s80, v80
v_add_co_ci_u32_e64 v34, null, s79, 0, s77
global_load_dwordx2 v[31:32], v[31:32], off
global_load_dwordx2 v[33:34], v[33:34], off
v_perm_b32 v19, v25, v19, 0x7060302
v_perm_b32 v25, v26, v20, 0x5040100
v_perm_b32 v20, v26, v20, 0x7060302
v_readlane_b32 s77, v99, 21
v_dot2c_f32_f16 v71, s88, v0
v_dot2c_f32_f16 v70, s88, v19
v_dot2c_f32_f16 v69, s88, v25
v_dot2c_f32_f16 v67, s88, v20
v_dot2c_f32_f16 v66, s89, v0
v_dot2c_f32_f16 v65, s89, v19
v_dot2c_f32_f16 v64, s89, v25
v_dot2c_f32_f16 v63, s89, v20
v_dot2c_f32_f16 v62, s90, v0
v_dot2c_f32_f16 v61, s90, v19
v_dot2c_f32_f16 v60, s90, v25
v_dot2c_f32_f16 v59, s90, v20
v_dot2c_f32_f16 v58, s91, v0
v_dot2c_f32_f16 v57, s91, v19
v_dot2c_f32_f16 v56, s91, v25
v_dot2c_f32_f16 v55, s91, v20
v_dot2c_f32_f16 v54, s92, v0
v_dot2c_f32_f16 v53, s92, v19
v_dot2c_f32_f16 v52, s92, v25
v_dot2c_f32_f16 v51, s92, v20
v_dot2c_f32_f16 v50, s85, v0
v_dot2c_f32_f16 v49, s85, v19
v_dot2c_f32_f16 v48, s85, v25
v_dot2c_f32_f16 v47, s85, v20
v_dot2c_f32_f16 v46, s83, v0
v_dot2c_f32_f16 v45, s83, v19
v_dot2c_f32_f16 v44, s83, v25
v_dot2c_f32_f16 v43, s83, v20
v_dot2c_f32_f16 v42, s81, v0
v_dot2c_f32_f16 v41, s81, v19
v_dot2c_f32_f16 v40, s81, v25
v_dot2c_f32_f16 v39, s81, v20
v_readlane_b32 s84, v96, 20
v_readlane_b32 s86, v97, 20
v_readlane_b32 s87, v98, 20
v_readlane_b32 s93, v99, 20
v_readlane_b32 s94, v96, 21
v_readlane_b32 s82, v97, 21
v_readlane_b32 s79, v98, 21
v_readlane_b32 s78, v88, 28
v_readlane_b32 s80, v89, 28
v_readlane_b32 s83, v88, 29
v_readlane_b32 s81, v89, 29
s_waitcnt vmcnt(10)
v_perm_b32 v0, v27, v21, 0x5040100
v_add_co_u32 v19, s78, s78, v80
v_add_co_ci_u32_e64 v20, null, s80, 0, s78
v_add_co_u32 v25, s78, s83, v80
v_add_co_ci_u32_e64 v26, null, s81, 0, s78
global_load_dwordx2 v[19:20], v[19:20], off
global_load_dwordx2 v[25:26], v[25:26], off
v_perm_b32 v21, v27, v21, 0x7060302
v_perm_b32 v27, v28, v22, 0x5040100
v_perm_b32 v22, v28, v22, 0x7060302
v_readlane_b32 s78, v99, 23
v_dot2c_f32_f16 v71, s84, v0
v_dot2c_f32_f16 v70, s84, v21
v_dot2c_f32_f16 v69, s84, v27
v_dot2c_f32_f16 v67, s84, v22
v_dot2c_f32_f16 v66, s86, v0
v_dot2c_f32_f16 v65, s86, v21
v_dot2c_f32_f16 v64, s86, v27
v_dot2c_f32_f16 v63, s86, v22
v_dot2c_f32_f16 v62, s87, v0
v_dot2c_f32_f16 v61, s87, v21
v_dot2c_f32_f16 v60, s87, v27
v_dot2c_f32_f16 v59, s87, v22
v_dot2c_f32_f16 v58, s93, v0
v_dot2c_f32_f16 v57, s93, v21
v_dot2c_f32_f16 v56, s93, v27
v_dot2c_f32_f16 v55, s93, v22
v_dot2c_f32_f16 v54, s94, v0
v_dot2c_f32_f16 v53, s94, v21
v_dot2c_f32_f16 v52, s94, v27
v_dot2c_f32_f16 v51, s94, v22
v_dot2c_f32_f16 v50, s82, v0
v_dot2c_f32_f16 v49, s82, v21
v_dot2c_f32_f16 v48, s82, v27
v_dot2c_f32_f16 v47, s82, v22
v_dot2c_f32_f16 v46, s79, v0
v_dot2c_f32_f16 v45, s79, v21
v_dot2c_f32_f16 v44, s79, v27
v_dot2c_f32_f16 v43, s79, v22
v_dot2c_f32_f16 v42, s77, v0
v_dot2c_f32_f16 v41, s77, v21
v_dot2c_f32_f16 v40, s77, v27
v_dot2c_f32_f16 v39, s77, v22
v_readlane_b32 s83, v96, 22
v_readlane_b32 s85, v97, 22
v_readlane_b32 s88, v98, 22
v_readlane_b32 s89, v99, 22
v_readlane_b32 s90, v96, 23
v_readlane_b32 s81, v97, 23
v_readlane_b32 s80, v98, 23
v_readlane_b32 s77, v88, 30
v_readlane_b32 s79, v89, 30
v_readlane_b32 s84, v88, 31
v_readlane_b32 s82, v89, 31
s_waitcnt vmcnt(10)
v_perm_b32 v0, v29, v23, 0x5040100
v_add_co_u32 v21, s77, s77, v80
v_add_co_ci_u32_e64 v22, null, s79, 0, s77
v_add_co_u32 v27, s77, s84, v80
v_add_co_ci_u32_e64 v28, null, s82, 0, s77
global_load_dwordx2 v[21:22], v[21:22], off
global_load_dwordx2 v[27:28], v[27:28], off
v_perm_b32 v23, v29, v23, 0x7060302
v_perm_b32 v29, v30, v24, 0x5040100
v_perm_b32 v24, v30, v24, 0x7060302
v_readlane_b32 s77, v99, 25
v_dot2c_f32_f16 v71, s83, v0
v_dot2c_f32_f16 v70, s83, v23
v_dot2c_f32_f16 v69, s83, v29
v_dot2c_f32_f16 v67, s83, v24
v_dot2c_f32_f16 v66, s85, v0
v_dot2c_f32_f16 v65, s85, v23
v_dot2c_f32_f16 v64, s85, v29
v_dot2c_f32_f16 v63, s85, v24
v_dot2c_f32_f16 v62, s88, v0
v_dot2c_f32_f16 v61, s88, v23
v_dot2c_f32_f16 v60, s88, v29
v_dot2c_f32_f16 v59, s88, v24
v_dot2c_f32_f16 v58, s89, v0
v_dot2c_f32_f16 v57, s89, v23
v_dot2c_f32_f16 v56, s89, v29
v_dot2c_f32_f16 v55, s89, v24
v_dot2c_f32_f16 v54, s90, v0
v_dot2c_f32_f16 v53, s90, v23
v_dot2c_f32_f16 v52, s90, v29
v_dot2c_f32_f16 v51, s90, v24
v_dot2c_f32_f16 v50, s81, v0
v_dot2c_f32_f16 v49, s81, v23
v_dot2c_f32_f16 v48, s81, v29
v_dot2c_f32_f16 v47, s81, v24
v_dot2c_f32_f16 v46, s80, v0
v_dot2c_f32_f16 v45, s80, v23
v_dot2c_f32_f16 v44, s80, v29
v_dot2c_f32_f16 v43, s80, v24
v_dot2c_f32_f16 v42, s78, v0
v_dot2c_f32_f16 v41, s78, v23
v_dot2c_f32_f16 v40, s78, v29
v_dot2c_f32_f16 v39, s78, v24
v_readlane_b32 s79, v96, 24
v_readlane_b32 s82, v97, 24
v_readlane_b32 s84, v98, 24
v_readlane_b32 s86, v99, 24
v_readlane_b32 s87, v96, 25
v_readlane_b32 s91, v97, 25
v_readlane_b32 s92, v98, 25
s_waitcnt vmcnt(10)
v_perm_b32 v0, v37, v35, 0x5040100
v_perm_b32 v23, v37, v35, 0x7060302
v_perm_b32 v24, v38, v36, 0x5040100
v_perm_b32 v29, v38, v36, 0x7060302
v_readlane_b32 s78, v99, 27
v_dot2c_f32_f16 v71, s79, v0
v_dot2c_f32_f16 v70, s79, v23
v_dot2c_f32_f16 v69, s79, v24
v_dot2c_f32_f16 v67, s79, v29
v_dot2c_f32_f16 v66, s82, v0
v_dot2c_f32_f16 v65, s82, v23
v_dot2c_f32_f16 v64, s82, v24
v_dot2c_f32_f16 v63, s82, v29
v_dot2c_f32_f16 v62, s84, v0
v_dot2c_f32_f16 v61, s84, v23
v_dot2c_f32_f16 v60, s84, v24
v_dot2c_f32_f16 v59, s84, v29
v_dot2c_f32_f16 v58, s86, v0
v_dot2c_f32_f16 v57, s86, v23
v_dot2c_f32_f16 v56, s86, v24
v_dot2c_f32_f16 v55, s86, v29
v_dot2c_f32_f16 v54, s87, v0
v_dot2c_f32_f16 v53, s87, v23
v_dot2c_f32_f16 v52, s87, v24
v_dot2c_f32_f16 v51, s87, v29
v_dot2c_f32_f16 v50, s91, v0
v_dot2c_f32_f16 v49, s91, v23
v_dot2c_f32_f16 v48, s91, v24
v_dot2c_f32_f16 v47, s91, v29
v_dot2c_f32_f16 v46, s92, v0
v_dot2c_f32_f16 v45, s92, v23
v_dot2c_f32_f16 v44, s92, v24
v_dot2c_f32_f16 v43, s92, v29
v_dot2c_f32_f16 v42, s77, v0
v_dot2c_f32_f16 v41, s77, v23
v_dot2c_f32_f16 v40, s77, v24
v_dot2c_f32_f16 v39, s77, v29
v_readlane_b32 s80, v96, 26
v_readlane_b32 s81, v97, 26
v_readlane_b32 s83, v98, 26
v_readlane_b32 s85, v99, 26
v_readlane_b32 s88, v96, 27
v_readlane_b32 s89, v97, 27
v_readlane_b32 s90, v98, 27
s_waitcnt vmcnt(4)
v_perm_b32 v0, v33, v31, 0x5040100
v_perm_b32 v23, v33, v31, 0x7060302
v_perm_b32 v24, v34, v32, 0x5040100
v_perm_b32 v29, v34, v32, 0x7060302
v_readlane_b32 s77, v99, 29
v_dot2c_f32_f16 v71, s80, v0
v_dot2c_f32_f16 v70, s80, v23
v_dot2c_f32_f16 v69, s80, v24
v_dot2c_f32_f16 v67, s80, v29
v_dot2c_f32_f16 v66, s81, v0
v_dot2c_f32_f16 v65, s81, v23
v_dot2c_f32_f16 v64, s81, v24
v_dot2c_f32_f16 v63, s81, v29
v_dot2c_f32_f16 v62, s83, v0
v_dot2c_f32_f16 v61, s83, v23
v_dot2c_f32_f16 v60, s83, v24
v_dot2c_f32_f16 v59, s83, v29
v_dot2c_f32_f16 v58, s85, v0
v_dot2c_f32_f16 v57, s85, v23
v_dot2c_f32_f16 v56, s85, v24
v_dot2c_f32_f16 v55, s85, v29
v_dot2c_f32_f16 v54, s88, v0
v_dot2c_f32_f16 v53, s88, v23
v_dot2c_f32_f16 v52, s88, v24
v_dot2c_f32_f16 v51, s88, v29
v_dot2c_f32_f16 v50, s89, v0
v_dot2c_f32_f16 v49, s89, v23
v_dot2c_f32_f16 v48, s89, v24
v_dot2c_f32_f16 v47, s89, v29
v_dot2c_f32_f16 v46, s90, v0
v_dot2c_f32_f16 v45, s90, v23
v_dot2c_f32_f16 v44, s90, v24
v_dot2c_f32_f16 v43, s90, v29
v_dot2c_f32_f16 v42, s78, v0
v_dot2c_f32_f16 v41, s78, v23
v_dot2c_f32_f16 v40, s78, v24
v_dot2c_f32_f16 v39, s78, v29
v_readlane_b32 s79, v96, 28
v_readlane_b32 s82, v97, 28
v_readlane_b32 s84, v98, 28
v_readlane_b32 s86, v99, 28
v_readlane_b32 s87, v96, 29
v_readlane_b32 s91, v97, 29
v_readlane_b32 s92, v98, 29
s_waitcnt vmcnt(2)
v_perm_b32 v0, v25, v19, 0x5040100
v_perm_b32 v19, v25, v19, 0x7060302
v_perm_b32 v23, v26, v20, 0x5040100
v_perm_b32 v20, v26, v20, 0x7060302
v_readlane_b32 s78, v96, 30
v_dot2c_f32_f16 v71, s79, v0
v_dot2c_f32_f16 v70, s79, v19
v_dot2c_f32_f16 v69, s79, v23
v_dot2c_f32_f16 v67, s79, v20
v_dot2c_f32_f16 v66, s82, v0
v_dot2c_f32_f16 v65, s82, v19
v_dot2c_f32_f16 v64, s82, v23
v_dot2c_f32_f16 v63, s82, v20
v_dot2c_f32_f16 v62, s84, v0
v_dot2c_f32_f16 v61, s84, v19
v_dot2c_f32_f16 v60, s84, v23
v_dot2c_f32_f16 v59, s84, v20
v_dot2c_f32_f16 v58, s86, v0
v_dot2c_f32_f16 v57, s86, v19
v_dot2c_f32_f16 v56, s86, v23
v_dot2c_f32_f16 v55, s86, v20
v_dot2c_f32_f16 v54, s87, v0
v_dot2c_f32_f16 v53, s87, v19
v_dot2c_f32_f16 v52, s87, v23
v_dot2c_f32_f16 v51, s87, v20
v_dot2c_f32_f16 v50, s91, v0
v_dot2c_f32_f16 v49, s91, v19
v_dot2c_f32_f16 v48, s91, v23
v_dot2c_f32_f16 v47, s91, v20
v_dot2c_f32_f16 v46, s92, v0
v_dot2c_f32_f16 v45, s92, v19
v_dot2c_f32_f16 v44, s92, v23
v_dot2c_f32_f16 v43, s92, v20
v_dot2c_f32_f16 v42, s77, v0
v_dot2c_f32_f16 v41, s77, v19
v_dot2c_f32_f16 v40, s77, v23
v_dot2c_f32_f16 v39, s77, v20
v_readlane_b32 s80, v97, 30
v_readlane_b32 s81, v98, 30
v_readlane_b32 s83, v99, 30
v_readlane_b32 s85, v96, 31
v_readlane_b32 s88, v97, 31
v_readlane_b32 s89, v98, 31
v_readlane_b32 s90, v99, 31
s_waitcnt vmcnt(0)
v_perm_b32 v0, v27, v21, 0x5040100
v_perm_b32 v19, v27, v21, 0x7060302
v_perm_b32 v20, v28, v22, 0x5040100
v_perm_b32 v21, v28, v22, 0x7060302
v_dot2c_f32_f16 v71, s78, v0
v_dot2c_f32_f16 v70, s78, v19
v_dot2c_f32_f16 v69, s78, v20
v_dot2c_f32_f16 v67, s78, v21
v_dot2c_f32_f16 v66, s80, v0
v_dot2c_f32_f16 v65, s80, v19
v_dot2c_f32_f16 v64, s80, v20
v_dot2c_f32_f16 v63, s80, v21
v_dot2c_f32_f16 v62, s81, v0
v_dot2c_f32_f16 v61, s81, v19
v_dot2c_f32_f16 v60, s81, v20
v_dot2c_f32_f16 v59, s81, v21
v_dot2c_f32_f16 v58, s83, v0
v_dot2c_f32_f16 v57, s83, v19
v_dot2c_f32_f16 v56, s83, v20
v_dot2c_f32_f16 v55, s83, v21
v_dot2c_f32_f16 v54, s85, v0
v_dot2c_f32_f16 v53, s85, v19
v_dot2c_f32_f16 v52, s85, v20
v_dot2c_f32_f16 v51, s85, v21
v_dot2c_f32_f16 v50, s88, v0
v_dot2c_f32_f16 v49, s88, v19
v_dot2c_f32_f16 v48, s88, v20
v_dot2c_f32_f16 v47, s88, v21
v_dot2c_f32_f16 v46, s89, v0
v_dot2c_f32_f16 v45, s89, v19
v_dot2c_f32_f16 v44, s89, v20
v_dot2c_f32_f16 v43, s89, v21
v_dot2c_f32_f16 v42, s90, v0
v_dot2c_f32_f16 v41, s90, v19
v_dot2c_f32_f16 v40, s90, v20
v_dot2c_f32_f16 v39, s90, v21
v_mul_lo_u32 v0, s18, v92
v_mul_lo_u32 v21, s19, v86
v_mad_u64_u32 v[19:20], null, s18, v86, s[10:11]
v_fmac_f32_e32 v90, v87, v95
v_readfirstlane_b32 s77, v94
s_add_i32 s41, s41, 1
s_cmp_eq_u32 s0, s76
s_mov_b32 s78, s76
v_add3_u32 v20, v21, v20, v0
v_mul_lo_u32 v0, s20, v93
v_mul_lo_u32 v21, s21, v91
v_mad_u64_u32 v[19:20], null, s20, v91, v[19:20]
v_add3_u32 v20, v21, v20, v0
v_lshlrev_b64 v[21:22], 1, v[19:20]
