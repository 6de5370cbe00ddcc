import{e as a,f as b,g as c}from"./chunk-KUFDXJJH.js";import"./chunk-GYB4VUS2.js";export{a as loadFleetMap,c as mountPoseMap,b as poseOfPayload};
